import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// Real memory charged to the device on request (`jetsamctl pressure allocate SIZE`): a process that touches
/// SIZE bytes and holds them, in a cgroup inside the device that is not an app, so jetsam never picks it.
///
/// Releasing never waits on the loop: the process is killed, and its end (pidfd) and its cgroup's removal
/// follow as loop events. Charging is watched the same way: the process says `done:` on its output (a pipe the
/// loop watches) once every page is touched.
final class Balloon {
  /// How filling the balloon goes.
  enum Charge: Equatable {
    case filling
    case charged
    /// Its process ended (killed at a cap, or by someone) before it had touched everything.
    case failed
  }

  /// Balloon cgroups are named `_balloon-N`: app names start with a letter or digit, so they cannot collide, and
  /// a new balloon can be made while an old one is still leaving.
  static let cgroupPrefix = "_balloon"

  let bytes: Int64
  private let cgroup: AppCgroup
  private let launcher: any ProcessLauncher
  /// Where its end and its cgroup's removal are watched once it is released, and where what goes wrong is told.
  private let loop: EventLoop
  private let log: Logger
  /// Its process, once started (a spawner service answers later).
  private var process: SpawnedProcess?
  /// Set once `init` has returned: a launcher's answer after that is a late one.
  private var isConstructed = false
  /// A release asked for before the process had started: carried out when it has (what to call once it is gone).
  private var pendingRelease: (() -> Void)?
  private var exitSource: EventSource?
  private var removalTimer: EventSource?
  private var removalAttempts = 0
  private(set) var charge = Charge.filling
  /// The requests waiting on pressure (`pressure allocate --wait`): rechecked once the charge is known (charged or
  /// failed).
  private let waiters: ConditionWaiters
  private var output: FileDescriptor?
  private var outputSource: EventSource?
  /// The end of what the process wrote so far: enough to find `done:` split over two reads.
  private var outputTail: [UInt8] = []

  /// Starts the balloon's process through `launcher`.
  ///
  /// - Throws: when its cgroup or output pipe cannot be made, or when the launcher says at once that the process
  ///   cannot start (a spawner service's refusal comes later, as a ``Charge/failed`` charge).
  init(
    device: DeviceCgroup, number: Int, bytes: Int64, helper: String, loop: EventLoop, log: Logger,
    launcher: any ProcessLauncher, waiters: ConditionWaiters
  ) throws {
    self.bytes = bytes
    self.launcher = launcher
    self.loop = loop
    self.log = log
    self.waiters = waiters
    cgroup = try device.makeApp(
      name: "\(Balloon.cgroupPrefix)-\(number)", limits: AppLimits(memoryBytes: nil, cpuPercent: nil, pids: 4))
    var ends: [Int32] = [-1, -1]
    guard jetsam_pipe_nonblocking_read(&ends) == 0 else {
      _ = try? cgroup.removeIfEmpty()
      throw SystemError.current("pipe2 for the balloon's output")
    }
    let (readEnd, writeEnd) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    // Rounded up without overflow, whatever the caller passed.
    let megabytes = max(1, bytes / (1 << 20) + (bytes % (1 << 20) > 0 ? 1 : 0))
    var refusedAtOnce: SpawnError?
    var answered = false
    launcher.spawn(
      SpawnRequest(
        arguments: [helper, "alloc", String(megabytes), "--hold"], environment: ["PATH=/usr/bin:/bin"],
        workingDirectory: "/", user: nil, cgroupDirectory: cgroup.spawnDirectory,
        joinProcsFiles: cgroup.joinProcsFiles, oomScoreAdj: 1000, stdin: nil, stdout: writeEnd, stderr: nil)
    ) { [weak self] result in
      answered = true
      switch result {
      case .success(let process):
        guard let self else {
          _ = try? sendSignal(pidfd: process.pidfd, Signal.kill)
          return process.pidfd.close()
        }
        self.started(process)
      case .failure(let error):
        guard let self, self.isConstructed else {
          refusedAtOnce = error
          return
        }
        // Refused by a spawner service after the request was answered: the charge fails, a `--wait` says so.
        self.finishCharge(.failed)
        if let pending = self.pendingRelease { self.removeCgroup(done: pending) }
      }
    }
    writeEnd.close()
    if let refusedAtOnce, answered {
      readEnd.close()
      _ = try? cgroup.removeIfEmpty()
      throw refusedAtOnce
    }
    output = readEnd
    do {
      outputSource = try loop.watch(fd: readEnd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
        self.readOutput()
      }
    } catch {
      // Unwatched, the charge stays unknown: nothing waits on it but a `--wait`, which then times out.
      stopReadingOutput()
    }
    isConstructed = true
  }

  deinit { stopReadingOutput() }

  private func started(_ process: SpawnedProcess) {
    self.process = process
    // Only its end matters, not how it ended.
    launcher.discardExit(of: process.pid)
    if let pending = pendingRelease { release(done: pending) }
  }

  /// Reads what the process wrote; `done:` means every page is touched, the end of its output before that means
  /// it died first.
  private func readOutput() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let fd = output {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
      guard count > 0 else { return finishCharge(.failed) }
      outputTail = Array((outputTail + buffer[..<count]).suffix(64))
      if outputTail.firstRange(of: Array("done:".utf8)) != nil { return finishCharge(.charged) }
    }
  }

  private func finishCharge(_ result: Charge) {
    stopReadingOutput()
    guard charge == .filling else { return }
    charge = result
    waiters.recheck()
  }

  private func stopReadingOutput() {
    outputSource?.cancel()
    outputSource = nil
    output?.close()
    output = nil
  }

  /// Kills the balloon process (its memory comes back at once); reaping it and removing its cgroup follow on the
  /// loop. `done` runs when the cgroup is gone.
  func release(done: @escaping () -> Void = {}) {
    stopReadingOutput()
    try? cgroup.killAll()
    guard let process else {
      // Not started yet: killed as soon as it is (or its cgroup goes if it never starts).
      pendingRelease = done
      return
    }
    pendingRelease = nil
    _ = try? sendSignal(pidfd: process.pidfd, Signal.kill)
    do {
      exitSource = try loop.watch(fd: process.pidfd.rawValue, events: EpollEvents.readable) { [self] _ in
        _ = try? launcher.reap(pid: process.pid, pidfd: process.pidfd)
        exitSource?.cancel()
        exitSource = nil
        process.pidfd.close()
        removeCgroup(done: done)
      }
    } catch {
      log.error("watching the balloon's end: \(error)")
    }
  }

  /// Tries to remove the cgroup, again every few milliseconds while its last process is leaving (for 2 s).
  private func removeCgroup(done: @escaping () -> Void) {
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
      removalTimer = try? loop.timer(at: nil) { [self] in removeCgroup(done: done) }
    }
    removalTimer?.schedule(at: MonotonicClock.now().advanced(by: .milliseconds(5)))
  }
}
