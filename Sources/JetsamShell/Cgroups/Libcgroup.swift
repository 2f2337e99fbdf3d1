import CCgroup
import Glibc

/// One control file value for libcgroup to write, e.g. `memory.limit_in_bytes` = `33554432`.
package struct CgroupFileValue: Sendable, Equatable, CustomStringConvertible {
  var file: String
  var value: String

  init(_ file: String, _ value: String) {
    self.file = file
    self.value = value
  }

  package var description: String { "\(file)=\(value)" }
}

/// The few libcgroup calls jetsam makes: initialisation, controller discovery and the lifecycle of controller
/// cgroups (create with values, modify values, delete when empty), on cgroup v1 hierarchies and on pure cgroup v2.
///
/// Paths are relative to the hierarchy's mount point (`/process_api/x/jetsam-device`). libcgroup cannot use the
/// unified mount of the hybrid layout (it takes it for the `hugetlb` controller and creating there fails with
/// ENOENT), so that mount is handled with plain `mkdir`/`rmdir` elsewhere. Nothing here is on a hot path: libcgroup
/// opens and closes files per call.
///
/// Only opaque `struct cgroup *` pointers are used: the structs with `char[4096]` members (`cgroup_mount_point`,
/// `cgroup_file_info`) import as 4096-element tuples that take seconds to compile per by-value use.
enum Libcgroup {
  /// `cgroup_init()`'s result and `errno`, computed once per process (a thread-safe lazy global).
  private static let initialization: (code: Int32, errno: Int32) = {
    let code = cgroup_init()
    return (code, code == 0 ? 0 : cgroup_get_last_errno())
  }()

  /// Runs `cgroup_init()` once; later calls return the first result.
  static func initialize() throws(CgroupError) {
    let result = initialization
    if result.code != 0 {
      throw CgroupError(.libcgroup(code: Int(result.code), errno: result.errno), "cgroup_init")
    }
  }

  /// Where `controller` is mounted (`/sys/fs/cgroup/memory` on v1, `/sys/fs/cgroup` on pure v2).
  static func mountPoint(of controller: CgroupController) throws(CgroupError) -> String {
    try initialize()
    var pointer: UnsafeMutablePointer<CChar>? = nil
    let code = cgroup_get_subsys_mount_point(controller.rawValue, &pointer)
    defer { free(pointer) }
    guard code == 0, let pointer else {
      if Int(code) == ECGROUPNOTEXIST || Int(code) == ECGROUPSUBSYSNOTMOUNTED {
        throw CgroupError(.notMounted(controller.rawValue), "find the mount point of the \(controller) controller")
      }
      throw error(code, "find the mount point of the \(controller) controller")
    }
    return String(cString: pointer)
  }

  /// Creates `relativePath` in the hierarchies of `controllers` and writes `values` (in order) into it.
  ///
  /// libcgroup treats an existing directory as success. On pure cgroup v2 it also enables the controllers in the
  /// parent's `cgroup.subtree_control`.
  static func create(
    _ relativePath: String, controllers: [CgroupController], values: [CgroupController: [CgroupFileValue]]
  ) throws(CgroupError) {
    let operation = "create cgroup \(label(relativePath, controllers)) with \(describe(values))"
    try withGroup(relativePath, controllers: controllers, values: values, operation) { group in
      // ignore_ownership = 1: leave owner and modes as the kernel made them (root, 0644).
      cgroup_create_cgroup(group, 1)
    }
  }

  /// Writes `values` into the existing cgroup `relativePath`.
  static func modify(
    _ relativePath: String, controllers: [CgroupController], values: [CgroupController: [CgroupFileValue]]
  ) throws(CgroupError) {
    let operation = "set \(describe(values)) in cgroup \(label(relativePath, controllers))"
    try withGroup(relativePath, controllers: controllers, values: values, operation) { group in
      cgroup_modify_cgroup(group)
    }
  }

  /// Removes the empty cgroup `relativePath` from the hierarchies of `controllers`; a missing one counts as removed.
  ///
  /// `CGFLAG_DELETE_EMPTY_ONLY`: without it libcgroup first moves any remaining task into the parent, which would
  /// let an app's process escape its caps into the device (or the daemon's own) cgroup. With it, a cgroup that still
  /// has tasks is left in place, but libcgroup 2.0.2 then returns 0 rather than `ECGNONEMPTY`: callers must check
  /// that the directory is gone (``CgroupDirectory/remove(timeout:)`` does).
  static func delete(_ relativePath: String, controllers: [CgroupController]) throws(CgroupError) {
    let operation = "delete cgroup \(label(relativePath, controllers))"
    try withGroup(relativePath, controllers: controllers, values: [:], operation) { group in
      cgroup_delete_cgroup_ext(group, Int32(CGFLAG_DELETE_EMPTY_ONLY.rawValue))
    }
  }

  /// Whether `error` is libcgroup's "the group still has tasks" answer to ``delete(_:controllers:)``.
  static func isNonEmpty(_ error: CgroupError) -> Bool {
    if case .libcgroup(let code, let errnoValue) = error.reason {
      return code == ECGNONEMPTY || (code == ECGOTHER && errnoValue == EBUSY)
    }
    return false
  }

  // MARK: - Private

  private static func withGroup(
    _ relativePath: String, controllers: [CgroupController], values: [CgroupController: [CgroupFileValue]],
    _ operation: @autoclosure () -> String, _ call: (OpaquePointer) -> Int32
  ) throws(CgroupError) {
    try initialize()
    guard let group = cgroup_new_cgroup(relativePath) else {
      throw CgroupError(.libcgroup(code: ECGFAIL, errno: ENOMEM), operation())
    }
    defer {
      var pointer: OpaquePointer? = group
      cgroup_free(&pointer)
    }
    for controller in controllers {
      guard let handle = cgroup_add_controller(group, controller.rawValue) else {
        throw CgroupError(.libcgroup(code: ECGINVAL, errno: 0), operation())
      }
      for value in values[controller] ?? [] {
        let code = cgroup_add_value_string(handle, value.file, value.value)
        if code != 0 { throw error(code, operation()) }
      }
    }
    let code = call(group)
    if code != 0 { throw error(code, operation()) }
  }

  private static func error(_ code: Int32, _ operation: String) -> CgroupError {
    CgroupError(.libcgroup(code: Int(code), errno: Int(code) == ECGOTHER ? cgroup_get_last_errno() : 0), operation)
  }

  private static func label(_ relativePath: String, _ controllers: [CgroupController]) -> String {
    "\(controllers.map(\.rawValue).joined(separator: ",")):\(relativePath)"
  }

  private static func describe(_ values: [CgroupController: [CgroupFileValue]]) -> String {
    let all = values.keys.sorted().flatMap { values[$0]! }
    return all.isEmpty ? "no values" : all.map(\.description).joined(separator: " ")
  }
}
