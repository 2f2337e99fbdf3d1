import Glibc
import JetsamPlatform

/// A throwaway cgroup for one test or bench step: a directory of the same name in the cgroup2 hierarchy and/or in
/// some v1 controller hierarchies, all removed by ``destroy()`` with ``removeCgroupTree(_:timeout:)``, whatever is
/// left inside.
///
/// On pure cgroup v2 there are no v1 hierarchies: ``v1Directories`` is then empty whatever was asked for.
public final class ScratchCgroup: @unchecked Sendable {
  /// Where the directories go.
  public enum Placement: Sendable {
    /// Right below each hierarchy's root (`/sys/fs/cgroup/unified/NAME`, `/sys/fs/cgroup/memory/NAME`).
    case hierarchyRoot
    /// Beside this process, below its own cgroup in each hierarchy (as a daemon places its device).
    case besideThisProcess
  }

  /// The directory name, the same in every hierarchy.
  public let name: String
  /// The cgroup2 directory, if one was asked for.
  public let unifiedDirectory: String?
  /// The v1 directories by controller (`memory`, `pids`, ...).
  public let v1Directories: [String: String]
  private var cleanupID: Int?

  /// Creates the directories (and removes those already made if one fails).
  ///
  /// - Parameters:
  ///   - name: one path component, unique to the caller (e.g. with its pid and a random number).
  ///   - placement: where.
  ///   - unified: whether to make a cgroup2 directory.
  ///   - v1Controllers: the v1 hierarchies to make a directory in (ignored on pure v2).
  /// - Throws: ``SystemError`` from `mkdir`; ``TestKitError`` when a v1 hierarchy asked for is not mounted.
  public init(name: String, placement: Placement, unified: Bool = true, v1Controllers: [String] = []) throws {
    self.name = name
    let own = placement == .besideThisProcess ? CgroupHost.directories() : [:]
    func parent(ofHierarchy controllers: String) throws -> String {
      let found = placement == .hierarchyRoot ? CgroupHost.mountPoint(ofHierarchy: controllers) : own[controllers]
      guard let found else { throw TestKitError("no cgroup hierarchy \"\(controllers)\" to make \(name) in") }
      return found
    }
    unifiedDirectory = try unified ? parent(ofHierarchy: "") + "/" + name : nil
    var v1: [String: String] = [:]
    if !CgroupHost.isPureV2 {
      for controller in v1Controllers { v1[controller] = try parent(ofHierarchy: controller) + "/" + name }
    }
    v1Directories = v1
    var made: [String] = []
    do {
      for path in directories {
        try systemCall("mkdir \(path)") { mkdir(path, 0o755) }
        made.append(path)
      }
    } catch {
      for path in made.reversed() { rmdir(path) }
      throw error
    }
    let directories = directories
    cleanupID = CleanupRegistry.shared.add {
      for path in directories { try? removeCgroupTree(path) }
    }
  }

  /// Every directory: the cgroup2 one first, then the v1 ones by controller name.
  public var directories: [String] {
    (unifiedDirectory.map { [$0] } ?? []) + v1Directories.keys.sorted().map { v1Directories[$0]! }
  }

  /// The v1 `cgroup.procs` files a process must join (the cgroup2 one it enters by `CLONE_INTO_CGROUP`).
  public var joinProcsFiles: [String] {
    v1Directories.keys.sorted().map { v1Directories[$0]! + "/cgroup.procs" }
  }

  /// The pids in any of the directories.
  public func processIDs() -> Set<Int32> {
    var pids = Set<Int32>()
    for path in directories {
      for line in ((try? readTextFile(path + "/cgroup.procs")) ?? "").split(separator: "\n") {
        if let pid = Int32(line) { pids.insert(pid) }
      }
    }
    return pids
  }

  /// Kills whatever is inside (by pid) and removes every directory; safe to call twice.
  ///
  /// - Throws: ``TestKitError`` for the first directory that could not be removed (the others are still tried).
  public func destroy() throws {
    if let cleanupID { CleanupRegistry.shared.remove(cleanupID) }
    cleanupID = nil
    var firstError: Error?
    for path in directories.reversed() {
      do { try removeCgroupTree(path) } catch { firstError = firstError ?? error }
    }
    if let firstError { throw firstError }
  }
}
