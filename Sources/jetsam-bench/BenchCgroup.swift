import Glibc
import JetsamTestKit

/// A v1 memory cgroup of the bench's own (`<own memory cgroup>/jetsam-bench-<pid>-<label>`), so that the
/// processes of the earlyoom runs are charged to a counter of the same kind as jetsamd's device: memory back is
/// then measured the same way for both tools. Removed (its processes SIGKILLed by pid) by ``remove()``.
final class BenchCgroup {
  let directory: String
  private let scratch: ScratchCgroup

  /// Creates the cgroup; nil on a host without a v1 memory hierarchy.
  init?(label: String) {
    guard
      let scratch = try? ScratchCgroup(
        name: "jetsam-bench-\(getpid())-\(label)", placement: .besideThisProcess, unified: false,
        v1Controllers: ["memory"]),
      let directory = scratch.v1Directories["memory"]
    else { return nil }
    self.scratch = scratch
    self.directory = directory
  }

  var usagePath: String { directory + "/memory.usage_in_bytes" }
  var procsPath: String { directory + "/cgroup.procs" }

  /// The pids inside.
  func processIDs() -> [Int32] { Array(scratch.processIDs()) }

  func remove() { try? scratch.destroy() }
}
