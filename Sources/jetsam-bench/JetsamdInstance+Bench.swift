import Foundation
import Glibc
import JetsamTestKit

extension JetsamdInstance {
  /// A jetsamd for one bench step, in `<root>/<label>` with the device cgroup `jetsam-bench-<pid>-<label>` (beside
  /// the bench's own cgroup), its log read at real-time priority.
  ///
  /// - Parameters:
  ///   - device: the JSON5 body of `device`, without `cgroupName`.
  ///   - extra: more top-level keys, each with its trailing comma.
  convenience init(binaries: Binaries, label: String, root: String, device: String, extra: String = "") throws {
    try self.init(
      binaries: binaries, directory: root + "/" + label, cgroupName: "jetsam-bench-\(getpid())-\(label)",
      config: "{ device: { \(device) }, \(extra) }", realTimeLog: true)
  }

  /// The device cgroup's memory usage file: v1 `memory.usage_in_bytes` on the hybrid layout (status
  /// `"<v1 memory dir> + <unified dir>"`), v2 `memory.current` on pure v2 (`"<unified dir>"`).
  var deviceUsagePath: String {
    let parts = status.deviceCgroup.components(separatedBy: " + ")
    return parts.count == 2 ? parts[0] + "/memory.usage_in_bytes" : parts[0] + "/memory.current"
  }

  /// The device's cgroup2 directory.
  var deviceUnifiedDirectory: String {
    status.deviceCgroup.components(separatedBy: " + ").last ?? status.deviceCgroup
  }
}
