import Foundation
import Glibc

/// A v1 memory cgroup of the bench's own (`<own memory cgroup>/jetsam-bench-<pid>-<label>`), so that the
/// processes of the earlyoom runs are charged to a counter of the same kind as jetsamd's device: memory back is
/// then measured the same way for both tools. Removed (its processes SIGKILLed by pid) by ``remove()``.
final class BenchCgroup {
  let directory: String
  private var cleanupID: Int?

  /// Creates the cgroup; nil on a host without a v1 memory hierarchy.
  init?(label: String) {
    guard let own = CgroupPaths.ownV1MemoryDirectory() else { return nil }
    let directory = own + "/jetsam-bench-\(getpid())-\(label)"
    guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { return nil }
    self.directory = directory
    cleanupID = CleanupRegistry.shared.add { CgroupPaths.removeTree(directory) }
  }

  var usagePath: String { directory + "/memory.usage_in_bytes" }
  var procsPath: String { directory + "/cgroup.procs" }

  /// The pids inside.
  func processIDs() -> [Int32] {
    ((try? String(contentsOfFile: procsPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
  }

  func remove() {
    if let cleanupID { CleanupRegistry.shared.run(cleanupID) }
    cleanupID = nil
  }
}
