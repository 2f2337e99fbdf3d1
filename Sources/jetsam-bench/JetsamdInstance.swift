import Foundation
import Glibc
import JetsamControlClient
import JetsamProtocol

/// A real jetsamd started by the bench, with its own config, state and runtime directories, control socket and
/// device cgroup (`jetsam-bench-<pid>-<label>`, beside the bench's own cgroup), logging to a ``LineLog``.
///
/// ``stop()`` ends it by pid (SIGTERM, SIGKILL after 20 s) and removes every trace: apps it left behind (killed by
/// pid through their cgroups), the cgroups, the directory.
final class JetsamdInstance {
  let label: String
  let directory: String
  let cgroupName: String
  let socketPath: String
  let process: ChildProcess
  /// The device cgroup's memory usage file (v1 `memory.usage_in_bytes` or v2 `memory.current`).
  let deviceUsagePath: String
  /// The device's cgroup2 directory.
  let deviceUnifiedDirectory: String
  /// A cgroup the daemon was started in on pure cgroup v2 (as systemd would place a service), else nil.
  private var serviceCgroup: String?
  private var cleanupID: Int?

  var pid: Int32 { process.pid }
  var log: LineLog { process.log }

  /// Starts jetsamd with `device` (the JSON5 body of `device`, without `cgroupName`) and `extra` top-level keys,
  /// and waits until its socket answers.
  init(binaries: Binaries, label: String, root: String, device: String, extra: String = "") throws {
    self.label = label
    directory = root + "/" + label
    cgroupName = "jetsam-bench-\(getpid())-\(label)"
    socketPath = directory + "/run/jetsamd.sock"
    try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
    let config = """
      {
        stateDirectory: "\(directory)/state",
        runtimeDirectory: "\(directory)/run",
        controlGroup: null,
        device: { cgroupName: "\(cgroupName)", \(device) },
        \(extra)
      }
      """
    let configPath = directory + "/jetsamd.json5"
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    let cgroupName = self.cgroupName
    let arguments = ["--config", configPath, "--foreground"]
    var service: String?
    if CgroupPaths.isPureV2 {
      // Like a systemd service: its own cgroup, which the daemon splits into a supervisor leaf and the device.
      let path = "/sys/fs/cgroup/\(cgroupName).service"
      guard mkdir(path, 0o755) == 0 else { throw BenchError("mkdir \(path): \(String(cString: strerror(errno)))") }
      service = path
      process = try ChildProcess(
        "/bin/sh", ["-c", "echo 0 > \"$0/cgroup.procs\" && exec \"$@\"", path, binaries.jetsamd] + arguments)
    } else {
      process = try ChildProcess(binaries.jetsamd, arguments)
    }
    serviceCgroup = service
    let process = self.process
    let directory = self.directory
    cleanupID = CleanupRegistry.shared.add {
      process.stop(signal: SIGTERM, grace: 20)
      if let service { CgroupPaths.removeTree(service) } else { CgroupPaths.removeEverywhere(named: cgroupName) }
      try? FileManager.default.removeItem(atPath: directory)
    }

    var status: StatusInfo?
    let start = MonotonicTime.now()
    while status == nil && MonotonicTime.seconds(since: start) < 20 {
      if !process.isRunning { break }
      status = try? ControlClient(path: socketPath).status()
      if status == nil { MonotonicTime.sleep(milliseconds: 20) }
    }
    guard let status else {
      let log = process.log.text
      if let cleanupID { CleanupRegistry.shared.run(cleanupID) }
      throw BenchError("jetsamd (\(label)) did not come up:\n\(log)")
    }
    // Hybrid: "<v1 memory dir> + <unified dir>"; pure v2: "<unified dir>".
    let parts = status.deviceCgroup.components(separatedBy: " + ")
    if parts.count == 2 {
      deviceUsagePath = parts[0] + "/memory.usage_in_bytes"
      deviceUnifiedDirectory = parts[1]
    } else {
      deviceUsagePath = parts[0] + "/memory.current"
      deviceUnifiedDirectory = parts[0]
    }
  }

  /// A new connection to the control socket.
  func client() throws -> ControlClient { try ControlClient(path: socketPath) }

  /// Stops the daemon and removes every trace of it.
  func stop() {
    if let cleanupID { CleanupRegistry.shared.run(cleanupID) }
    cleanupID = nil
  }
}
