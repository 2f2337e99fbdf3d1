import Foundation
import JetsamPlatform

/// How this machine mounts its cgroup hierarchies, and where a process sits in them.
///
/// The build machines mount cgroup v1 controllers one per hierarchy under `/sys/fs/cgroup` plus a cgroup2 mount at
/// `/sys/fs/cgroup/unified` (hybrid); current systemd distributions mount one cgroup2 hierarchy at `/sys/fs/cgroup`
/// (pure v2). See PLATFORM.md.
public enum CgroupHost {
  /// Where every hierarchy is mounted.
  public static let root = "/sys/fs/cgroup"

  /// Whether `/sys/fs/cgroup` itself is the cgroup2 hierarchy (pure v2: no v1 controllers).
  public static var isPureV2: Bool {
    (try? FileSystemType(of: root)) == .cgroup2
  }

  /// The cgroup2 mount: `/sys/fs/cgroup` on pure v2, `/sys/fs/cgroup/unified` on the hybrid layout.
  public static var unifiedMount: String {
    isPureV2 ? root : root + "/unified"
  }

  /// Whether the cgroup2 mount has `nsdelegate` (systemd mounts it so on pure v2; the v2 VM too): cgroup
  /// namespaces are then delegation boundaries, out of which not even root can move a process.
  public static var unifiedHasNSDelegate: Bool {
    guard let mounts = try? readTextFile("/proc/self/mounts") else { return false }
    return mounts.split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.count > 3 && fields[1] == unifiedMount && fields[2] == "cgroup2"
        && fields[3].split(separator: ",").contains("nsdelegate")
    }
  }

  /// Where `pid` sits in each hierarchy, from `/proc/PID/cgroup`: the hierarchy's controller list (`memory`,
  /// `name=systemd`, `""` for cgroup2) → the path inside it (`/`, `/user.slice/...`). Empty when it is gone.
  public static func membership(of pid: Int32 = getpid()) -> [String: String] {
    guard let text = try? readTextFile("/proc/\(pid)/cgroup") else { return [:] }
    var result: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      result[String(fields[1])] = String(fields[2])
    }
    return result
  }

  /// Where the hierarchy with this controller list is mounted (`""` is cgroup2), `nil` when it is not.
  public static func mountPoint(ofHierarchy controllers: String) -> String? {
    let mount: String
    if controllers.isEmpty {
      mount = unifiedMount
    } else if controllers.hasPrefix("name=") {
      mount = root + "/" + controllers.dropFirst("name=".count)
    } else {
      mount = root + "/" + controllers
    }
    return FileManager.default.fileExists(atPath: mount + "/cgroup.procs") ? mount : nil
  }

  /// The cgroup directory of `pid` in every mounted hierarchy, by controller list (see ``membership(of:)``).
  public static func directories(of pid: Int32 = getpid()) -> [String: String] {
    var result: [String: String] = [:]
    for (controllers, path) in membership(of: pid) {
      guard let mount = mountPoint(ofHierarchy: controllers) else { continue }
      result[controllers] = mount + (path == "/" ? "" : path)
    }
    return result
  }
}
