import Glibc
import JetsamPlatform

/// How the host mounts its cgroup hierarchies, detected once at start-up.
public enum CgroupLayout: Sendable, Equatable {
  /// cgroup v1 controllers mounted one per hierarchy, plus a cgroup2 mount without controllers (systemd's "hybrid"
  /// mode, and these build machines). Caps and counters live in the v1 hierarchies; spawning, freeze, kill,
  /// `cgroup.events` and PSI use a cgroup in the cgroup2 mount.
  ///
  /// - Parameters:
  ///   - controllers: the mount point of each v1 controller jetsam uses (two controllers may share one when
  ///     co-mounted, as `cpu,cpuacct` often are).
  ///   - unified: the cgroup2 mount point, e.g. `/sys/fs/cgroup/unified`.
  case hybrid(controllers: [CgroupController: String], unified: String)
  /// Everything in one cgroup2 hierarchy mounted at `root` (current systemd distributions).
  case unified(root: String)

  /// The directory holding the cgroup hierarchies on every layout.
  public static let defaultRoot = "/sys/fs/cgroup"

  /// Detects the layout from the file system types under `root`, and (hybrid) from libcgroup's controller mount table.
  ///
  /// - Parameter root: normally `/sys/fs/cgroup`.
  /// - Returns: `.unified` when `root` is a cgroup2 mount; `.hybrid` when it is a tmpfs with v1 controller mounts and a
  ///   cgroup2 mount at `root/unified`.
  /// - Throws: ``CgroupError`` (`unsupported`) for a v1-only host, which has nowhere to freeze, kill or spawn into
  ///   an app the v2 way; `notMounted` when a controller jetsam needs is missing; ``SystemError`` when `statfs` fails.
  public static func detect(root: String = defaultRoot) throws -> CgroupLayout {
    let rootType = try fileSystemType(root)
    if rootType == cgroup2Magic { return .unified(root: root) }
    let unifiedMount = root + "/unified"
    guard (try? fileSystemType(unifiedMount)) == cgroup2Magic else {
      throw CgroupError(
        .unsupported(
          "\(root) holds only cgroup v1 hierarchies; jetsam needs a cgroup2 mount at \(unifiedMount) (hybrid) or at \(root)"
        ), "detect the cgroup layout")
    }
    var controllers: [CgroupController: String] = [:]
    for controller in CgroupController.allCases {
      let mountPoint = try Libcgroup.mountPoint(of: controller)
      guard try fileSystemType(mountPoint) == cgroup1Magic else {
        throw CgroupError(
          .notMounted("\(controller) (libcgroup names \(mountPoint), which is no cgroup v1 mount)"),
          "detect the cgroup layout")
      }
      controllers[controller] = mountPoint
    }
    return .hybrid(controllers: controllers, unified: unifiedMount)
  }

  /// The cgroup2 mount point: the unified mount on the hybrid layout, the root on pure cgroup v2.
  public var unifiedMountPoint: String {
    switch self {
    case .hybrid(_, let unified): unified
    case .unified(let root): root
    }
  }

  /// `hybrid` or `unified`, for logs and `jetsamctl`.
  public var modeName: String { isPureV2 ? "unified" : "hybrid" }

  /// Whether ``DeviceCgroup/usageThresholdEventFD(bytes:)`` works: v1 memory thresholds exist on the hybrid layout
  /// only.
  public var supportsUsageThresholds: Bool { !isPureV2 }

  /// Whether this is pure cgroup v2.
  public var isPureV2: Bool {
    if case .unified = self { return true }
    return false
  }

  /// Where process `pid` sits in each hierarchy jetsam uses, read from `/proc/PID/cgroup`.
  ///
  /// - Throws: ``SystemError`` when the file cannot be read (the process is gone), ``CgroupError`` when a hierarchy
  ///   jetsam needs has no line in it.
  public func ownCgroup(of pid: pid_t = getpid()) throws -> CgroupPlacement {
    try placement(fromProcCgroup: readTextFile("/proc/\(pid)/cgroup"), of: "/proc/\(pid)/cgroup")
  }

  /// Resolves the content of a `/proc/PID/cgroup` file against this layout.
  ///
  /// - Parameters:
  ///   - text: the file's content.
  ///   - source: the file's name, for error messages.
  public func placement(fromProcCgroup text: String, of source: String = "/proc/PID/cgroup") throws(CgroupError)
    -> CgroupPlacement
  {
    let lines = try ProcCgroupLine.parse(text)
    guard let unified = lines.unifiedPath else {
      throw CgroupError(.notMounted("no cgroup2 (0::) line"), "read \(source)")
    }
    guard case .hybrid(let controllers, _) = self else { return CgroupPlacement(unified: unified) }
    var v1: [CgroupController: String] = [:]
    for controller in controllers.keys {
      guard let path = lines.v1Path(of: controller) else {
        throw CgroupError(.notMounted("no line for the \(controller) controller"), "read \(source)")
      }
      v1[controller] = path
    }
    return CgroupPlacement(unified: unified, v1: v1)
  }
}

/// `CGROUP_SUPER_MAGIC` and `CGROUP2_SUPER_MAGIC` from `<linux/magic.h>`.
private let cgroup1Magic = 0x0027_e0eb
private let cgroup2Magic = 0x6367_7270

/// The `f_type` of the file system holding `path`, from `statfs(2)`.
///
/// Swift's Glibc module leaves out `<sys/vfs.h>`, so `statfs` is looked up with `dlsym` and called through a C
/// function pointer. `struct statfs` begins with `__fsword_t f_type` (a `long`) on every 64-bit Linux target jetsam
/// builds for; the 256-byte buffer is larger than the whole struct (120 bytes on x86_64 and aarch64).
func fileSystemType(_ path: String) throws(SystemError) -> Int {
  typealias StatfsFunction = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
  guard let symbol = statfsSymbol else { throw SystemError(code: ENOSYS, "statfs \(path) (symbol not found)") }
  let call = unsafeBitCast(symbol, to: StatfsFunction.self)
  let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
  defer { buffer.deallocate() }
  buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
  try systemCall("statfs \(path)") { call(path, buffer) }
  return buffer.load(as: Int.self)
}

/// The address of libc's `statfs`, resolved once.
private nonisolated(unsafe) let statfsSymbol: UnsafeMutableRawPointer? = dlsym(dlopen(nil, RTLD_NOW), "statfs")
