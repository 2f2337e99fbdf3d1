import Glibc
import JetsamPlatform

/// One directory of a jetsam cgroup in one mounted hierarchy.
///
/// Directories that carry controllers (the v1 memory/cpu/cpuacct/pids hierarchies, or the single pure-v2 directory)
/// are created, changed and deleted through libcgroup. The cgroup2 directory of the hybrid layout has no controllers
/// and lives where libcgroup cannot go (see ``Libcgroup``), so it is made and removed with `mkdir`/`rmdir`.
struct CgroupDirectory: Sendable, Hashable, CustomStringConvertible {
  /// The controllers libcgroup manages here; empty for a plain cgroup2 directory on the hybrid layout.
  let controllers: [CgroupController]
  /// The hierarchy's mount point, e.g. `/sys/fs/cgroup/memory`.
  let mountPoint: String
  /// The path below the mount point, starting with `/` (`/` itself for the hierarchy's root).
  let relativePath: String

  /// The absolute path.
  var path: String { relativePath == "/" ? mountPoint : mountPoint + relativePath }

  var description: String { path }

  /// The absolute path of control file `name`.
  func file(_ name: String) -> String { path + "/" + name }

  func child(_ name: String) -> CgroupDirectory {
    CgroupDirectory(
      controllers: controllers, mountPoint: mountPoint,
      relativePath: relativePath == "/" ? "/" + name : relativePath + "/" + name)
  }

  var parentRelativePath: String {
    guard let slash = relativePath.lastIndex(of: "/"), slash != relativePath.startIndex else { return "/" }
    return String(relativePath[..<slash])
  }

  /// Whether the directory exists.
  func exists() -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Creates the directory, writing `values` for its controllers; an existing directory is reused (values are still
  /// written).
  func create(values: [CgroupController: [CgroupFileValue]]) throws {
    if controllers.isEmpty {
      let result = mkdir(path, 0o755)
      if result != 0 && errno != EEXIST { throw SystemError.current("mkdir \(path)") }
    } else {
      try Libcgroup.create(relativePath, controllers: controllers, values: values)
    }
  }

  /// Writes `values` for this directory's controllers (ignores controllers it does not carry).
  func modify(values: [CgroupController: [CgroupFileValue]]) throws {
    let mine = values.filter { controllers.contains($0.key) && !$0.value.isEmpty }
    if mine.isEmpty { return }
    try Libcgroup.modify(relativePath, controllers: controllers, values: mine)
  }

  /// One removal attempt, which never waits: true when the directory is gone (a missing one counts as removed),
  /// false while the kernel still counts processes (they may be exiting) or child cgroups in it. Callers that must
  /// see it gone try again later (jetsamd from a loop timer). On cgroup v1, memory still charged to the cgroup (page
  /// cache) moves to the parent.
  ///
  /// - Throws: errors other than "busy" as they come.
  func removeIfEmpty() throws -> Bool {
    do {
      if controllers.isEmpty {
        try systemCall("rmdir \(path)") { rmdir(path) }
        return true
      }
      try Libcgroup.delete(relativePath, controllers: controllers)
      // libcgroup 2.0.2 reports success for a cgroup that is not empty: with CGFLAG_DELETE_EMPTY_ONLY its rmdir's
      // EBUSY becomes ECGNONEMPTY, which cgroup_delete_cgroup_ext then drops (it records ECGNONEMPTY only when an
      // earlier controller already failed that way). So the directory's absence is the only reliable answer.
      return !exists()
    } catch let error as SystemError where error.code == ENOENT {
      return true
    } catch let error as SystemError where error.code == EBUSY {
      return false
    } catch let error as CgroupError where Libcgroup.isNonEmpty(error) {
      return false
    }
  }

  /// The names of the child cgroups (subdirectories).
  func childNames() throws -> [String] {
    guard let directory = opendir(path) else { throw SystemError.current("opendir \(path)") }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  /// Why a removal gave up: still populated, or (cgroup2, not populated) child cgroups left inside.
  func busyError() -> Error {
    let children = (try? childNames()) ?? []
    if !children.isEmpty {
      return CgroupError(.hasChildCgroups(children), "remove cgroup \(path)")
    }
    return CgroupError(.stillPopulated, "remove cgroup \(path)")
  }
}

/// Checks a cgroup name given by a caller: one path component the kernel accepts and that cannot be mistaken for a
/// control file.
func validateCgroupName(_ name: String, _ operation: @autoclosure () -> String) throws(CgroupError) {
  let reserved = ["cgroup.", "memory.", "cpu.", "cpuacct.", "pids.", "io.", "cpuset.", "hugetlb.", "rdma.", "misc."]
  guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), !name.hasPrefix("."),
    !name.contains("\n"), !name.contains("\0"), !reserved.contains(where: { name.hasPrefix($0) })
  else {
    throw CgroupError(
      .invalidArgument("cgroup name \"\(name)\" (one path component, no leading dot, no controller prefix)"),
      operation())
  }
}
