/// Where a process sits in each cgroup hierarchy jetsam uses, as paths relative to each hierarchy's mount point.
public struct CgroupPlacement: Sendable, Equatable {
  /// The path in the cgroup2 hierarchy (the unified mount on the hybrid layout), `/` for its root.
  public var unified: String
  /// The path in each cgroup v1 hierarchy (hybrid layout only; empty on pure cgroup v2).
  public var v1: [CgroupController: String]

  public init(unified: String, v1: [CgroupController: String] = [:]) {
    self.unified = unified
    self.v1 = v1
  }
}

/// One line of `/proc/PID/cgroup`: `hierarchy-ID:controller-list:cgroup-path`.
public struct ProcCgroupLine: Sendable, Equatable {
  /// 0 for the cgroup2 hierarchy, the v1 hierarchy's number otherwise.
  public var hierarchyID: Int
  /// The controllers bound to the hierarchy (`["cpu", "cpuacct"]` when co-mounted, `["name=systemd"]`); empty for
  /// cgroup2.
  public var controllers: [String]
  /// The cgroup's path relative to the hierarchy's root (as seen from the reader's cgroup namespace).
  public var path: String

  public init(hierarchyID: Int, controllers: [String], path: String) {
    self.hierarchyID = hierarchyID
    self.controllers = controllers
    self.path = path
  }

  /// Parses the whole content of a `/proc/PID/cgroup` file.
  ///
  /// - Throws: ``CgroupError`` (`unexpectedContent`) naming the first malformed line.
  public static func parse(_ text: String) throws(CgroupError) -> [ProcCgroupLine] {
    var lines: [ProcCgroupLine] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      // The path may itself contain ':', so split at the first two only.
      let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3, let id = Int(fields[0]), fields[2].hasPrefix("/") else {
        throw CgroupError(.unexpectedContent("line \"\(line)\""), "parse /proc/PID/cgroup")
      }
      let controllers = fields[1].split(separator: ",").map(String.init)
      lines.append(ProcCgroupLine(hierarchyID: id, controllers: controllers, path: String(fields[2])))
    }
    return lines
  }
}

extension Array where Element == ProcCgroupLine {
  /// The path in the v1 hierarchy that carries `controller`, if the process has one.
  public func v1Path(of controller: CgroupController) -> String? {
    first { $0.hierarchyID != 0 && $0.controllers.contains(controller.rawValue) }?.path
  }

  /// The path in the cgroup2 hierarchy (the `0::` line), if the process has one.
  public var unifiedPath: String? {
    first { $0.hierarchyID == 0 && $0.controllers.isEmpty }?.path
  }
}
