import Glibc
import JetsamCore
import JetsamPlatform

/// Where the supervisor makes and finds the apps' cgroups (the real one is the ``DeviceCgroup``).
public protocol CgroupBackend: AnyObject {
  /// Creates app `name`'s cgroup with `limits`.
  func makeAppCgroup(name: String, limits: AppLimits) throws -> any AppCgroupControl
  /// Opens app `name`'s existing cgroup (after a daemon restart).
  func adoptAppCgroup(name: String) throws -> any AppCgroupControl
  /// The names of the app cgroups that exist.
  func appNames() throws -> [String]
}

/// One app's cgroup, as the supervisor uses it (the real one is ``AppCgroup``).
public protocol AppCgroupControl: AnyObject {
  var name: String { get }
  var displayPath: String { get }
  /// The cgroup2 directory a child is spawned into (`clone3(CLONE_INTO_CGROUP)`).
  var spawnDirectory: FileDescriptor { get }
  /// v1 `cgroup.procs` files a child joins before exec (hybrid layout).
  var joinProcsFiles: [String] { get }
  /// `cgroup.events`, watched for `POLLPRI` when `populated` or `frozen` change.
  var eventsDescriptor: FileDescriptor { get }
  func processIDs() throws -> [pid_t]
  func events() throws -> CgroupEvents
  func freeze() throws
  func thaw() throws
  func killAll() throws
  func setLimits(_ limits: AppLimits) throws
  func memoryUsage() throws -> Int64
  func peakMemory() throws -> Int64
  func memoryLimit() throws -> Int64?
  func cpuSeconds() throws -> Double
  func oomKillCount() throws -> Int
  /// Bytes the cgroup has written to block devices (`io.stat` wbytes), or nil when it has no I/O accounting (the
  /// io controller is not enabled for it: the hybrid layout, or a v2 host that does not delegate io).
  func storageBytesWritten() throws -> Int64?
  /// One removal attempt that never waits: false while processes (or child cgroups) remain.
  func removeIfEmpty() throws -> Bool
  /// Why the cgroup is still busy, for messages.
  func busyError() -> Error
}

extension AppCgroup: AppCgroupControl {}

extension AppCgroupControl {
  /// No I/O accounting, unless the cgroup says otherwise (the supervisor's fakes have none).
  public func storageBytesWritten() throws -> Int64? { nil }
}

extension DeviceCgroup: CgroupBackend {
  public func makeAppCgroup(name: String, limits: AppLimits) throws -> any AppCgroupControl {
    try makeApp(name: name, limits: limits)
  }

  public func adoptAppCgroup(name: String) throws -> any AppCgroupControl {
    try adoptApp(name: name)
  }
}
