import Foundation
import Glibc
import JetsamCore

/// Real memory charged to the device on request (`jetsamctl pressure allocate SIZE`): a process that touches
/// SIZE bytes and holds them, in a cgroup inside the device that is not an app, so jetsam never picks it.
final class Balloon {
  /// The cgroup name: app names must start with a letter or digit, so it cannot collide with an app.
  static let cgroupName = "_balloon"

  let bytes: Int64
  private let cgroup: AppCgroup
  private let process: SpawnedProcess

  init(device: DeviceCgroup, bytes: Int64, helper: String) throws {
    self.bytes = bytes
    cgroup = try device.makeApp(name: Balloon.cgroupName, limits: AppLimits(memoryBytes: nil, cpuPercent: nil, pids: 4))
    do {
      let megabytes = max(1, (bytes + (1 << 20) - 1) >> 20)
      process = try spawnProcess(
        SpawnRequest(
          arguments: [helper, "alloc", String(megabytes), "--hold"], environment: ["PATH=/usr/bin:/bin"],
          workingDirectory: "/", user: nil, cgroupDirectory: cgroup.spawnDirectory,
          joinProcsFiles: cgroup.joinProcsFiles, oomScoreAdj: 1000, stdin: nil, stdout: nil, stderr: nil))
    } catch {
      try? cgroup.remove()
      throw error
    }
  }

  /// Kills the balloon process and removes its cgroup, giving the memory back.
  func release() {
    _ = try? sendSignal(pidfd: process.pidfd, Signal.kill)
    try? cgroup.killAll()
    for _ in 0..<1000 {
      if (try? reapExit(pidfd: process.pidfd)) != nil { break }
      usleep(1000)
    }
    process.pidfd.close()
    try? cgroup.remove()
  }
}

extension Daemon {
  /// The helper program that allocates memory on request (installed beside jetsamd).
  static var helperPath: String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/usr/bin/jetsamd"
    return (exe as NSString).deletingLastPathComponent + "/jetsam-testapp"
  }

  func inflateBalloon(bytes: Int64) throws {
    balloon?.release()
    balloon = nil
    balloon = try Balloon(device: device, bytes: bytes, helper: Daemon.helperPath)
  }
}
