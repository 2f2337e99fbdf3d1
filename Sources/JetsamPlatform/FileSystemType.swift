internal import CJetsamShim

/// The type of a mounted file system, as `statfs(2)` reports it in `f_type` (the `*_MAGIC` numbers of
/// `<linux/magic.h>`).
public struct FileSystemType: RawRepresentable, Hashable, Sendable {
  /// The `f_type` number.
  public let rawValue: Int

  /// The type with this `f_type` number.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The type of the file system holding `path`. The corresponding C function is `statfs`.
  ///
  /// - Throws: ``SystemError`` (`ENOENT` when nothing is at `path`).
  public init(of path: String) throws(SystemError) {
    // Swift's Glibc module leaves out <sys/vfs.h>: the shim calls statfs.
    rawValue = try systemCall("statfs \(path)") { jetsam_statfs_type(path) }
  }

  /// A cgroup v1 hierarchy. The corresponding C constant is `CGROUP_SUPER_MAGIC`.
  public static let cgroup1 = FileSystemType(rawValue: 0x0027_e0eb)
  /// The cgroup v2 (unified) hierarchy. The corresponding C constant is `CGROUP2_SUPER_MAGIC`.
  public static let cgroup2 = FileSystemType(rawValue: 0x6367_7270)
  /// tmpfs. The corresponding C constant is `TMPFS_MAGIC`.
  public static let tmpfs = FileSystemType(rawValue: 0x0102_1994)
  /// overlayfs. The corresponding C constant is `OVERLAYFS_SUPER_MAGIC`.
  public static let overlayfs = FileSystemType(rawValue: 0x794c_7630)
}
