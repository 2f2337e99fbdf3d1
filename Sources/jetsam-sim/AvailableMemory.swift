import Foundation
import JetsamSim

/// The memory this process can take without the OOM killer: the least of the machine's `MemAvailable` and what is
/// left under the memory limit of each cgroup it sits in (cgroup v1's `memory` hierarchy and cgroup2, so on the
/// hybrid layout both are looked at), with the place it comes from.
///
/// Read by `main` before a run, for ``JetsamSim/SimMemoryEstimate``: the library does no I/O.
struct AvailableMemory {
  var bytes: Int64
  /// Where the figure comes from, for the refusal's message.
  var source: String

  /// v1 writes an unlimited cgroup's limit as the largest page count (near 2^63): anything above this is no limit.
  private static let unlimited: Int64 = 1 << 62

  /// What can be had now, or nil when nothing says (no /proc: the run is then not checked).
  static func read() -> AvailableMemory? {
    var least: AvailableMemory?
    func consider(_ bytes: Int64, _ source: String) {
      if least.map({ bytes < $0.bytes }) ?? true { least = AvailableMemory(bytes: bytes, source: source) }
    }
    if let kibibytes = field("MemAvailable", of: text("/proc/meminfo")) {
      consider(kibibytes * 1024, "MemAvailable in /proc/meminfo")
    }
    for cgroup in cgroupDirectories() {
      // A limit anywhere above the process's own cgroup holds it too, so each ancestor counts.
      var directory = cgroup.directory
      while true {
        if let room = room(in: directory, version2: cgroup.version2) {
          consider(room.bytes, "left under the \(room.limit) memory limit of cgroup \(directory)")
        }
        guard directory.count > cgroup.mount.count, let slash = directory.lastIndex(of: "/") else { break }
        directory = String(directory[..<slash])
      }
    }
    return least
  }

  /// What is left under the limit of the cgroup at `directory`, if it has one: the limit less what its processes
  /// use, not counting inactive page cache (the kernel reclaims that before it kills).
  private static func room(in directory: String, version2: Bool) -> (bytes: Int64, limit: String)? {
    let (limitFile, usageFile, inactiveKey) =
      version2
      ? ("memory.max", "memory.current", "inactive_file")
      : ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
    // cgroup2 writes "max" for no limit, which is no number either.
    guard let limit = number(directory + "/" + limitFile), limit < unlimited,
      let usage = number(directory + "/" + usageFile)
    else { return nil }
    let inactive = field(inactiveKey, of: text(directory + "/memory.stat")) ?? 0
    let used = max(usage - inactive, 0)
    return (max(limit - used, 0), SimMemoryEstimate.describe(limit))
  }

  /// The directories of this process's cgroups that can hold a memory limit: in the v1 `memory` hierarchy and in
  /// cgroup2, each with its hierarchy's mount point (where the walk up stops).
  private static func cgroupDirectories() -> [(directory: String, mount: String, version2: Bool)] {
    guard let membership = text("/proc/self/cgroup"), let mounts = text("/proc/self/mounts") else { return [] }
    var v1Mount: String?
    var v2Mount: String?
    for line in mounts.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count > 3 else { continue }
      if fields[2] == "cgroup2" { v2Mount = v2Mount ?? String(fields[1]) }
      if fields[2] == "cgroup", fields[3].split(separator: ",").contains("memory") {
        v1Mount = v1Mount ?? String(fields[1])
      }
    }
    var found: [(directory: String, mount: String, version2: Bool)] = []
    for line in membership.split(separator: "\n") {
      // `ID:CONTROLLERS:PATH`; cgroup2's line has no controllers.
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      let version2 = fields[1].isEmpty
      let memory = version2 || fields[1].split(separator: ",").contains("memory")
      guard memory, let mount = version2 ? v2Mount : v1Mount else { continue }
      let path = fields[2] == "/" ? "" : String(fields[2])
      // Inside a container whose cgroup is mounted as the hierarchy's root, the path names a directory not there.
      let directory = FileManager.default.fileExists(atPath: mount + path) ? mount + path : mount
      found.append((directory, mount, version2))
    }
    return found
  }

  /// The value of `key` in a `key value` or `key: value kB` listing (/proc/meminfo, memory.stat).
  private static func field(_ key: String, of text: String?) -> Int64? {
    for line in text?.split(separator: "\n") ?? [] {
      let words = line.split(whereSeparator: { $0 == " " || $0 == ":" })
      if words.count >= 2, words[0] == key { return Int64(words[1]) }
    }
    return nil
  }

  /// The one number a cgroup file holds, if it holds one.
  private static func number(_ path: String) -> Int64? {
    text(path).flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  private static func text(_ path: String) -> String? {
    try? String(contentsOfFile: path, encoding: .utf8)
  }
}
