import Foundation
import Glibc

/// Where this process's cgroups are, per hierarchy, and how to remove a cgroup tree the bench (or a daemon it
/// started) created: processes left inside are SIGKILLed by pid through the tree's `cgroup.procs`.
enum CgroupPaths {
  /// Whether /sys/fs/cgroup itself is the unified hierarchy (no v1 controllers).
  static var isPureV2: Bool {
    !FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified")
      && FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
  }

  /// This process's cgroup directory in each mounted hierarchy (`<mount><own path>`).
  static func ownDirectories() -> [String] {
    guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return [] }
    var result: [String] = []
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { continue }
      let controllers = parts[1].split(separator: ",").map(String.init)
      let mount: String
      if controllers.isEmpty {
        mount =
          FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs")
          ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"
      } else if let first = controllers.first, first.hasPrefix("name=") {
        mount = "/sys/fs/cgroup/" + first.dropFirst(5)
      } else {
        mount = "/sys/fs/cgroup/" + controllers.joined(separator: ",")
      }
      guard FileManager.default.fileExists(atPath: mount) else { continue }
      let own = String(parts[2])
      result.append(mount + (own == "/" ? "" : own))
    }
    return result
  }

  /// This process's v1 memory cgroup directory, nil without a v1 memory hierarchy.
  static func ownV1MemoryDirectory() -> String? {
    ownDirectories().first { $0.hasPrefix("/sys/fs/cgroup/memory/") || $0 == "/sys/fs/cgroup/memory" }
  }

  /// Removes `name` below this process's cgroup in every hierarchy.
  static func removeEverywhere(named name: String) {
    for directory in ownDirectories() {
      let path = directory + "/" + name
      if FileManager.default.fileExists(atPath: path) { removeTree(path) }
    }
  }

  /// Removes a cgroup directory and its descendants, killing (by pid) any process still inside.
  static func removeTree(_ directory: String) {
    let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for child in children {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: directory + "/" + child, isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        removeTree(directory + "/" + child)
      }
    }
    for _ in 0..<300 {
      let procs = (try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? ""
      let pids = procs.split(separator: "\n").compactMap { Int32($0) }
      if pids.isEmpty { break }
      for pid in pids {
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
      }
      usleep(10_000)
    }
    for _ in 0..<100 {
      if rmdir(directory) == 0 || errno == ENOENT { return }
      usleep(10_000)
    }
  }
}
