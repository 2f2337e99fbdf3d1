import FoundationEssentials
import Glibc
import JetsamCore

/// Real memory charged to the device on request (`jetsamctl pressure allocate SIZE`): a process that touches
/// SIZE bytes and holds them, in a cgroup inside the device that is not an app, so jetsam never picks it.
///
/// Releasing never waits on the loop: the process is killed, and its end (pidfd) and its cgroup's removal
/// follow as loop events.
final class Balloon {
  /// Balloon cgroups are named `_balloon-N`: app names start with a letter or digit, so they cannot collide, and
  /// a new balloon can be made while an old one is still leaving.
  static let cgroupPrefix = "_balloon"

  let bytes: Int64
  private let cgroup: AppCgroup
  private let process: SpawnedProcess
  private var exitSource: EventSource?
  private var removalTimer: EventSource?
  private var removalAttempts = 0

  init(device: DeviceCgroup, number: Int, bytes: Int64, helper: String) throws {
    self.bytes = bytes
    cgroup = try device.makeApp(
      name: "\(Balloon.cgroupPrefix)-\(number)", limits: AppLimits(memoryBytes: nil, cpuPercent: nil, pids: 4))
    do {
      // Rounded up without overflow, whatever the caller passed.
      let megabytes = max(1, bytes / (1 << 20) + (bytes % (1 << 20) > 0 ? 1 : 0))
      process = try spawnProcess(
        SpawnRequest(
          arguments: [helper, "alloc", String(megabytes), "--hold"], environment: ["PATH=/usr/bin:/bin"],
          workingDirectory: "/", user: nil, cgroupDirectory: cgroup.spawnDirectory,
          joinProcsFiles: cgroup.joinProcsFiles, oomScoreAdj: 1000, stdin: nil, stdout: nil, stderr: nil))
    } catch {
      _ = try? cgroup.removeIfEmpty()
      throw error
    }
  }

  /// Kills the balloon process (its memory comes back at once); reaping it and removing its cgroup follow on the
  /// loop. `done` runs when the cgroup is gone.
  func release(loop: EventLoop, log: Logger, done: @escaping () -> Void = {}) {
    _ = try? sendSignal(pidfd: process.pidfd, Signal.kill)
    try? cgroup.killAll()
    do {
      exitSource = try loop.watch(fd: process.pidfd.rawValue, events: EpollEvents.readable) { [self] _ in
        _ = try? reapExit(pidfd: process.pidfd)
        exitSource?.cancel()
        exitSource = nil
        process.pidfd.close()
        removeCgroup(loop: loop, log: log, done: done)
      }
    } catch {
      log.error("watching the balloon's end: \(error)")
    }
  }

  /// Tries to remove the cgroup, again every few milliseconds while its last process is leaving (for 2 s).
  private func removeCgroup(loop: EventLoop, log: Logger, done: @escaping () -> Void) {
    removalAttempts += 1
    let removed: Bool
    do {
      removed = try cgroup.removeIfEmpty()
    } catch {
      log.warning("removing the balloon's cgroup: \(error)")
      return done()
    }
    if removed || removalAttempts > 400 {
      if !removed { log.warning("the balloon's cgroup stays: \(cgroup.busyError())") }
      removalTimer?.cancel()
      removalTimer = nil
      return done()
    }
    if removalTimer == nil {
      removalTimer = try? loop.timer(at: nil) { [self] in removeCgroup(loop: loop, log: log, done: done) }
    }
    removalTimer?.schedule(at: MonotonicClock.now().advanced(by: .milliseconds(5)))
  }
}
