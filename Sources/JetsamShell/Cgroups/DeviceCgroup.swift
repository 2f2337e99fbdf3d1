import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues

/// The emulated device: the parent cgroup of all apps, placed next to the daemon's own cgroup in every hierarchy
/// (`<own cgroup>/<name>`), so that the daemon itself stays outside it.
///
/// Capping the device's CPU (``setAppsCPULimit(percent:)``) keeps busy apps from starving the daemon; its memory
/// usage is the device's "RAM in use", the hot-path counter the pressure policy reads.
///
/// Owns one descriptor (the memory usage counter), closed on deinit. Descriptors returned by
/// ``usageThresholdEventFD(bytes:)`` and ``pressureTrigger(stallMicroseconds:windowMicroseconds:)`` belong to the
/// caller.
public final class DeviceCgroup: Sendable {
  /// The device cgroup's name (its directory name in every hierarchy).
  public let name: String
  public let layout: CgroupLayout
  let location: CgroupLocation
  private let usage: CgroupFile

  /// The name of the leaf the daemon moves into on pure cgroup v2 when its own cgroup holds processes.
  public static let supervisorName = "supervisor"

  /// Creates the device cgroup `<own cgroup>/<name>` in every hierarchy, or reuses it if it exists (a restarted
  /// daemon: its apps can then be adopted with ``adoptApp(name:)``; its caps are left as they are).
  ///
  /// On pure cgroup v2, a non-root own cgroup that holds processes (systemd puts a `Delegate=yes` service's processes
  /// there) cannot enable controllers for children ("no internal processes"), so every process in it, the daemon
  /// included, first moves into the leaf `<own>/supervisor`; then `+memory +cpu +pids` are enabled in
  /// `<own>/cgroup.subtree_control`, the device is created, and the same controllers are enabled in its own
  /// `cgroup.subtree_control` for the apps. When the daemon already sits in `<own>/supervisor` (a second device
  /// in the same process), `<own>` is used as the base.
  ///
  /// - Parameters:
  ///   - layout: from ``CgroupLayout/detect(root:)``.
  ///   - name: one path component, e.g. `jetsam-device`.
  /// - Throws: ``CgroupError`` or ``SystemError`` naming the path and step that failed.
  public static func create(layout: CgroupLayout, name: String) throws -> DeviceCgroup {
    try validateCgroupName(name, "create device cgroup \(name)")
    var placement = try layout.ownCgroup()
    if case .unified(let root) = layout {
      placement.unified = try prepareDelegatedBase(root: root, own: placement.unified)
    }
    let location = CgroupLocation(layout: layout, below: placement, name: name)
    let existed = location.exists()
    try location.create(values: [:])
    do {
      if location.isPureV2 { try enableUnifiedControllers(in: location.v2.path) }
      return try DeviceCgroup(name: name, layout: layout, location: location)
    } catch {
      if !existed { _ = try? location.removeIfEmpty() }
      throw error
    }
  }

  private init(name: String, layout: CgroupLayout, location: CgroupLocation) throws {
    self.name = name
    self.layout = layout
    self.location = location
    let memory = location.directory(for: .memory)!
    usage = try CgroupFile.open(location.isPureV2 ? "memory.current" : "memory.usage_in_bytes", in: memory.path)
  }

  deinit { usage.close() }

  /// Every directory of the device, one per hierarchy (controller hierarchies first, then the cgroup2 one).
  public var directories: [String] { location.allDirectories.map(\.path) }

  /// The device's cgroup2 directory (in the unified mount on the hybrid layout).
  public var unifiedDirectory: String { location.v2.path }

  /// A short human-readable place of the device: its cgroup2 directory, and on the hybrid layout its memory one.
  public var displayPath: String {
    location.isPureV2 ? location.v2.path : "\(location.directory(for: .memory)!.path) + \(location.v2.path)"
  }

  /// The directory holding `controller`'s files for the device.
  public func directory(for controller: CgroupController) -> String? { location.directory(for: controller)?.path }

  /// Memory charged to the device and all its apps, in bytes (v1 `memory.usage_in_bytes`, v2 `memory.current`).
  ///
  /// The hot path: one `pread` on a descriptor kept open.
  public func memoryUsage() throws -> Int64 {
    guard let value = try usage.readNumber() else {
      throw CgroupError(.unexpectedContent("max"), "read \(usage.path)")
    }
    return value
  }

  /// An eventfd the kernel signals whenever the device's memory usage crosses `bytes`, upwards or downwards
  /// (cgroup v1 `cgroup.event_control` on `memory.usage_in_bytes`; it fires within a millisecond of the crossing).
  ///
  /// - Returns: a non-blocking eventfd owned by the caller; read its 8-byte counter after each `POLLIN`. Closing it
  ///   unregisters the threshold.
  /// - Throws: ``SystemError`` with `EOPNOTSUPP` on pure cgroup v2, which has no usage thresholds (check
  ///   ``CgroupLayout/supportsUsageThresholds``): use ``pressureTrigger(stallMicroseconds:windowMicroseconds:)`` or
  ///   poll ``memoryUsage()`` there; `EINVAL` for a threshold that is not positive.
  public func usageThresholdEventFD(bytes: Int64) throws(SystemError) -> FileDescriptor {
    guard !location.isPureV2, let memory = location.directory(for: .memory) else {
      throw SystemError(
        code: EOPNOTSUPP,
        "register a memory threshold of \(bytes) bytes on \(location.v2.path): cgroup v2 has no usage thresholds "
          + "(cgroup.event_control is v1 only)")
    }
    return try CgroupNotifications.usageThreshold(memoryDirectory: memory.path, bytes: bytes)
  }

  /// A PSI trigger on the device's `memory.pressure` (the cgroup2 directory's; on the hybrid layout it counts stalls
  /// although the limits are set in v1): `POLLPRI` when some app task stalled on memory for more than
  /// `stallMicroseconds` within a `windowMicroseconds` window.
  ///
  /// - Parameters:
  ///   - stallMicroseconds: the stall budget per window.
  ///   - windowMicroseconds: 500 000 … 10 000 000; a multiple of 2 000 000 without `CAP_SYS_RESOURCE`.
  /// - Returns: the trigger descriptor (`O_RDWR | O_NONBLOCK`), owned by the caller; poll it for `POLLPRI`.
  /// - Throws: ``SystemError``: `EINVAL` for a trigger the kernel would refuse, else the failing call's errno.
  public func pressureTrigger(stallMicroseconds: Int, windowMicroseconds: Int) throws(SystemError) -> FileDescriptor {
    try CgroupNotifications.pressureTrigger(
      file: location.v2.file("memory.pressure"), stallMicroseconds: stallMicroseconds,
      windowMicroseconds: windowMicroseconds)
  }

  /// Creates the cgroup of app `name` inside the device with `limits`.
  ///
  /// - Throws: ``CgroupError`` (`alreadyExists`) if the app's cgroup exists (use ``adoptApp(name:)``), or the error of
  ///   the step that failed (whatever was created is removed again).
  public func makeApp(name: String, limits: AppLimits) throws -> AppCgroup {
    try AppCgroup.create(in: self, name: name, limits: limits)
  }

  /// Opens the existing cgroup of app `name` (after a daemon restart), leaving its limits and processes alone.
  ///
  /// - Throws: ``CgroupError`` (`notMounted`) naming the missing directory when the app's cgroup is incomplete.
  public func adoptApp(name: String) throws -> AppCgroup {
    try AppCgroup.adopt(in: self, name: name)
  }

  /// The names of the app cgroups currently inside the device (read from its cgroup2 directory).
  public func appNames() throws -> [String] { try location.v2.childNames() }

  /// Caps the CPU time of all apps together at `percent` of one core (100 = one core), or removes the cap (`nil`).
  ///
  /// cgroup v1 refuses (EINVAL) a child's quota above its parent's, in either order of writing, where cgroup v2 just
  /// applies the smaller one. So on v1 the app caps above the new device cap are first lowered to it, and later app
  /// caps are clamped to it (see ``AppCgroup/setLimits(_:)``); raising the device cap does not raise them back.
  public func setAppsCPULimit(percent: Double?) throws {
    let operation = "set the apps' CPU limit of device \(location.v2.path) to \(percent.map { "\($0) %" } ?? "none")"
    if let percent { try validateCPUPercent(percent, operation) }
    if location.isPureV2 {
      try location.modify(values: [.cpu: [CgroupFileValue("cpu.max", AppLimits.cpuMax(percent))]])
      return
    }
    if let percent {
      for app in try appNames() {
        let appCPU = location.child(app).directory(for: .cpu)!
        if let current = try Self.v1CPUPercent(of: appCPU), current > percent {
          try appCPU.modify(values: [.cpu: AppLimits.cfsValues(percent)])
        }
      }
    }
    try location.modify(values: [.cpu: AppLimits.cfsValues(percent)])
  }

  /// The device's CPU cap in percent of one core, `nil` when uncapped.
  public func appsCPULimit() throws -> Double? {
    if location.isPureV2 {
      let fields = try readTextFile(location.v2.file("cpu.max")).split(whereSeparator: \.isWhitespace)
      guard fields.count == 2, let period = Double(fields[1]), period > 0 else {
        throw CgroupError(.unexpectedContent("cpu.max"), "read \(location.v2.file("cpu.max"))")
      }
      return Double(fields[0]).map { $0 * 100 / period }
    }
    return try Self.v1CPUPercent(of: location.directory(for: .cpu)!)
  }

  /// Tries once to remove the device cgroup from every hierarchy, after any app cgroups left inside it; never
  /// waits. False while something in it is still busy (processes still exiting): try again later.
  ///
  /// - Throws: ``CgroupError`` or ``SystemError`` for anything but "still busy".
  public func removeIfEmpty() throws -> Bool {
    for app in try appNames() where !(try location.child(app).removeIfEmpty()) { return false }
    return try location.removeIfEmpty()
  }

  // MARK: - Internal

  /// A v1 CPU cap (`cpu.cfs_quota_us` per `cpu.cfs_period_us`) in percent of one core, `nil` when uncapped (-1).
  static func v1CPUPercent(of directory: CgroupDirectory) throws -> Double? {
    let quotaFile = try CgroupFile.open("cpu.cfs_quota_us", in: directory.path)
    defer { quotaFile.close() }
    let periodFile = try CgroupFile.open("cpu.cfs_period_us", in: directory.path)
    defer { periodFile.close() }
    guard let quota = try quotaFile.readNumber(), quota >= 0 else { return nil }
    guard let period = try periodFile.readNumber(), period > 0 else {
      throw CgroupError(.unexpectedContent("no positive period"), "read \(periodFile.path)")
    }
    return Double(quota) * 100 / Double(period)
  }

  /// Pure cgroup v2: makes `own` (the daemon's cgroup, relative to `root`) able to have controller-enabled children,
  /// and returns the path the device goes below.
  private static func prepareDelegatedBase(root: String, own: String) throws -> String {
    var base = own
    if base != "/" && base.hasSuffix("/" + supervisorName) {
      base = String(base.dropLast(supervisorName.count + 1))
      if base.isEmpty { base = "/" }
    }
    let baseDirectory = base == "/" ? root : root + base
    // The root cgroup is exempt from the no-internal-process rule; any other must be emptied into a leaf first.
    if base != "/" { try moveProcessesIntoLeaf(of: baseDirectory) }
    try enableUnifiedControllers(in: baseDirectory)
    return base
  }

  /// Moves every process in `directory` into `directory/supervisor` (the daemon and whatever else systemd started
  /// in its cgroup), retrying for processes forked meanwhile and for processes on their way out.
  ///
  /// The kernel does not move an exiting process: writing its pid succeeds, and it stays listed until it is gone.
  /// Twenty passes in a row took well under a millisecond, and a process exiting meanwhile (a test's helper, a
  /// program systemd started beside the daemon) outlasted them. So after the first few passes, processes still
  /// listed right after being moved are waited for through their pidfds until one is gone, for at most
  /// ``leafMoveBudget`` in all. This runs once, as the device is set up, before the event loop exists.
  private static func moveProcessesIntoLeaf(of directory: String) throws {
    let leaf = directory + "/" + supervisorName
    let deadline = MonotonicClock.now().advanced(by: leafMoveBudget)
    var pids = try readTextFile(directory + "/cgroup.procs").split(separator: "\n")
    var passes = 0
    while !pids.isEmpty {
      if mkdir(leaf, 0o755) != 0 && errno != EEXIST { throw SystemError.current("mkdir \(leaf)") }
      for pid in pids {
        do throws(SystemError) {
          try writeTextFile(leaf + "/cgroup.procs", String(pid))
        } catch {
          if error.code != ESRCH { throw error }  // ESRCH: it exited meanwhile
        }
      }
      passes += 1
      let left = try readTextFile(directory + "/cgroup.procs").split(separator: "\n")
      if left.isEmpty { return }
      guard MonotonicClock.now() < deadline else {
        throw CgroupError(
          .stillPopulated, "move the processes of \(directory) into \(leaf) (tried for \(leafMoveBudget))")
      }
      // Still listed though just moved: on its way out. A process new to the list was forked meanwhile, and the
      // next pass moves it at once.
      if passes >= 3, Set(left).isSubset(of: pids) { waitUntilOneEnds(left, until: deadline) }
      pids = left
    }
  }

  /// Waits until one of `pids` has ended (its pidfd becomes readable) or `deadline` passes; returns at once when one
  /// is gone already.
  private static func waitUntilOneEnds(_ pids: [Substring], until deadline: Instant) {
    let pidfds = pids.compactMap { Int32($0) }.compactMap { try? openPidfd(pid: $0) }
    defer { for pidfd in pidfds { pidfd.close() } }
    guard !pidfds.isEmpty, pidfds.count == pids.count else { return }
    var entries = pidfds.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
    let milliseconds = max(0, deadline.duration(since: MonotonicClock.now()).nanoseconds / 1_000_000) + 1
    _ = poll(&entries, nfds_t(entries.count), Int32(milliseconds))
  }

  /// How long the processes in the daemon's cgroup may take to be moved into its leaf (exiting ones to be gone).
  static let leafMoveBudget: Duration = .seconds(2)

  /// Enables memory, cpu and pids for the children of the cgroup2 directory `directory`.
  static func enableUnifiedControllers(in directory: String) throws {
    let available = Set(try readTextFile(directory + "/cgroup.controllers").split(whereSeparator: \.isWhitespace))
    let enabled = Set(try readTextFile(directory + "/cgroup.subtree_control").split(whereSeparator: \.isWhitespace))
    let wanted = CgroupController.unifiedControllers.map(\.rawValue)
    let missing = wanted.filter { !available.contains(Substring($0)) }
    guard missing.isEmpty else {
      throw CgroupError(
        .notMounted(
          "controllers \(missing.joined(separator: ", ")) are not available in \(directory) "
            + "(cgroup.controllers: \(available.sorted().joined(separator: " "))); delegate them (Delegate=yes)"),
        "enable controllers in \(directory)")
    }
    let toEnable = wanted.filter { !enabled.contains(Substring($0)) }
    if toEnable.isEmpty { return }
    let path = directory + "/cgroup.subtree_control"
    let text = toEnable.map { "+" + $0 }.joined(separator: " ")
    do throws(SystemError) {
      try writeTextFile(path, text)
    } catch {
      // EBUSY: the cgroup has processes of its own (no-internal-process rule).
      throw SystemError(code: error.code, "write \"\(text)\" to \(path)")
    }
  }
}
