import Glibc
import JetsamCore
import JetsamPlatform
import Synchronization

/// The state bits of a cgroup2 `cgroup.events` file.
public struct CgroupEvents: Sendable, Equatable {
  /// Some process is in the cgroup (or a descendant).
  public var populated: Bool
  /// The cgroup is frozen: every process in it stopped in the freezer (set only once all of them are).
  public var frozen: Bool

  public init(populated: Bool, frozen: Bool) {
    self.populated = populated
    self.frozen = frozen
  }
}

/// The cgroup of one app inside the ``DeviceCgroup``: its caps, its counters, and the cgroup2 directory its processes
/// are spawned into, frozen, killed and watched through.
///
/// Counters are read with `pread` on descriptors opened once (7–8 per app: mind `RLIMIT_NOFILE` for hundreds of
/// apps). The class owns all its descriptors, ``spawnDirectory`` and ``eventsDescriptor`` included, and closes them on
/// deinit: remove a descriptor from any poll set before letting go of the app.
public final class AppCgroup: Sendable {
  /// The app's cgroup name (its directory name in every hierarchy).
  public let name: String
  let location: CgroupLocation
  /// The device's location, for clamping v1 CPU caps to the device's.
  private let deviceLocation: CgroupLocation

  /// The app's cgroup2 directory, open `O_RDONLY | O_DIRECTORY`: `clone3(CLONE_INTO_CGROUP)` takes it (it rejects a
  /// v1 directory with EBADF). On the hybrid layout the child must also join ``joinProcsFiles`` before it execs.
  public let spawnDirectory: FileDescriptor
  /// The v1 `cgroup.procs` files a spawned child must write `0` into before exec (hybrid layout; empty on pure v2).
  ///
  /// Before exec, not after: v1 does not move memory already charged elsewhere (`memory.move_charge_at_immigrate`
  /// is 0).
  public var joinProcsFiles: [String] {
    location.isPureV2 ? [] : location.controllerDirectories.map { $0.file("cgroup.procs") }
  }

  /// `cgroup.events` of the app's cgroup2 directory, for `POLLPRI` (not `POLLIN`, which is always set) when
  /// `populated` or `frozen` changes. After each wake-up call ``events()``: it reads through this descriptor, which
  /// re-arms it (kernfs keeps signalling until the file is read again).
  public let eventsDescriptor: FileDescriptor

  private let usage: CgroupFile
  private let peak: CgroupFile?
  private let limit: CgroupFile
  /// v1 `memory.oom_control` or v2 `memory.events`: both have an `oom_kill` line.
  private let oomEvents: CgroupFile
  /// v1 `cpuacct.usage` (ns) or v2 `cpu.stat` (`usage_usec`).
  private let cpuUsage: CgroupFile
  /// `io.stat`, present only where the io controller is enabled for the app (pure v2 hosts that delegate it).
  private let ioStat: CgroupFile?
  private let procs: CgroupFile
  private let eventsFile: CgroupFile
  /// The memory cap last read (outer nil: not read since it was last set). Only jetsamd sets it, and every `ps`
  /// and batch answer shows it for every app: 1,000 reads it can skip.
  private let knownMemoryLimit = Mutex<Int64??>(nil)

  static func create(in device: DeviceCgroup, name: String, limits: AppLimits) throws -> AppCgroup {
    let operation = "create app cgroup \(name) in \(device.unifiedDirectory)"
    try validateCgroupName(name, operation)
    try limits.validate(operation)
    let location = device.location.child(name)
    if location.v2.exists() { throw CgroupError(.alreadyExists, "\(operation): \(location.v2.path)") }
    let values = try controlFileValues(limits, location: location, deviceLocation: device.location)
    try location.create(values: values)
    do {
      return try AppCgroup(name: name, location: location, deviceLocation: device.location)
    } catch {
      _ = try? location.removeIfEmpty()
      throw error
    }
  }

  static func adopt(in device: DeviceCgroup, name: String) throws -> AppCgroup {
    try validateCgroupName(name, "adopt app cgroup \(name)")
    let location = device.location.child(name)
    for directory in location.allDirectories where !directory.exists() {
      throw CgroupError(.notMounted("\(directory.path) does not exist"), "adopt app cgroup \(name)")
    }
    return try AppCgroup(name: name, location: location, deviceLocation: device.location)
  }

  private init(name: String, location: CgroupLocation, deviceLocation: CgroupLocation) throws {
    self.name = name
    self.location = location
    self.deviceLocation = deviceLocation

    // Open everything first, then assign: a failure part-way closes what was opened.
    var opened: [FileDescriptor] = []
    func keep(_ file: CgroupFile) -> CgroupFile {
      opened.append(file.descriptor)
      return file
    }
    do {
      // Each directory's path made once: its files share it.
      let v2 = location.v2.path
      let memory = location.directory(for: .memory)!.path
      let spawn = try FileDescriptor.open(v2, O_RDONLY | O_DIRECTORY)
      opened.append(spawn)
      let events = keep(try CgroupFile.open("cgroup.events", in: v2))
      let procs = keep(try CgroupFile.open("cgroup.procs", in: v2))
      ioStat = try CgroupFile.openIfPresent("io.stat", in: v2).map(keep)
      if location.isPureV2 {
        usage = keep(try CgroupFile.open("memory.current", in: memory))
        // memory.peak arrived in Linux 5.19.
        peak = try CgroupFile.openIfPresent("memory.peak", in: memory).map(keep)
        limit = keep(try CgroupFile.open("memory.max", in: memory))
        oomEvents = keep(try CgroupFile.open("memory.events", in: memory))
        cpuUsage = keep(try CgroupFile.open("cpu.stat", in: v2))
      } else {
        usage = keep(try CgroupFile.open("memory.usage_in_bytes", in: memory))
        peak = keep(try CgroupFile.open("memory.max_usage_in_bytes", in: memory))
        limit = keep(try CgroupFile.open("memory.limit_in_bytes", in: memory))
        oomEvents = keep(try CgroupFile.open("memory.oom_control", in: memory))
        cpuUsage = keep(try CgroupFile.open("cpuacct.usage", in: location.directory(for: .cpuacct)!.path))
      }
      spawnDirectory = spawn
      eventsDescriptor = events.descriptor
      self.eventsFile = events
      self.procs = procs
    } catch {
      for descriptor in opened { descriptor.close() }
      throw error
    }
  }

  deinit {
    spawnDirectory.close()
    for file in [usage, limit, oomEvents, cpuUsage, procs, eventsFile] { file.close() }
    peak?.close()
    ioStat?.close()
  }

  /// Every directory of the app, one per hierarchy (controller hierarchies first, then the cgroup2 one).
  public var directories: [String] { location.allDirectories.map(\.path) }

  /// The app's cgroup2 directory (in the unified mount on the hybrid layout).
  public var unifiedDirectory: String { location.v2.path }

  /// A short human-readable place of the app: its cgroup2 directory, and on the hybrid layout its memory one.
  public var displayPath: String {
    location.isPureV2 ? location.v2.path : "\(location.directory(for: .memory)!.path) + \(location.v2.path)"
  }

  /// The directory holding `controller`'s files for the app.
  public func directory(for controller: CgroupController) -> String? { location.directory(for: controller)?.path }

  // MARK: - Limits

  /// Replaces the app's caps (`nil` fields remove a cap).
  ///
  /// v1: `memory.limit_in_bytes`, `cpu.cfs_period_us`/`cpu.cfs_quota_us`, `pids.max`; v2: `memory.max`,
  /// `memory.swap.max` = 0 (when swap accounting exists), `memory.oom.group` = 1 (an OOM kills the whole app),
  /// `cpu.max`, `pids.max`. On v1 a CPU cap above the device's is clamped to the device's, as v2 does implicitly
  /// (v1 would refuse it with EINVAL).
  ///
  /// - Throws: ``CgroupError`` for an invalid limit or a libcgroup failure (e.g. `ECGOTHER` with EBUSY when the
  ///   memory cap is below what the app uses and cannot be reclaimed).
  public func setLimits(_ limits: AppLimits) throws {
    try limits.validate("set limits of app cgroup \(location.v2.path)")
    defer { knownMemoryLimit.withLock { $0 = nil } }
    try location.modify(
      values: try Self.controlFileValues(limits, location: location, deviceLocation: deviceLocation))
  }

  private static func controlFileValues(
    _ limits: AppLimits, location: CgroupLocation, deviceLocation: CgroupLocation
  ) throws -> [CgroupController: [CgroupFileValue]] {
    var limits = limits
    if !location.isPureV2, let requested = limits.cpuPercent,
      let deviceCap = try DeviceCgroup.v1CPUPercent(of: deviceLocation.directory(for: .cpu)!)
    {
      limits.cpuPercent = min(requested, deviceCap)
    }
    let swapControl = location.isPureV2 && deviceLocation.v2.exists(file: "memory.swap.max")
    return limits.controlFileValues(pureV2: location.isPureV2, swapControl: swapControl)
  }

  /// The memory cap in bytes, `nil` when unlimited.
  public func memoryLimit() throws -> Int64? {
    if let known = knownMemoryLimit.withLock({ $0 }) { return known }
    // v1 reports "no limit" as the page counter's maximum (9223372036854771712 with 4 KiB pages).
    let value = try limit.readNumber().flatMap { $0 >= Int64.max / 2 ? nil : $0 }
    knownMemoryLimit.withLock { $0 = .some(value) }
    return value
  }

  // MARK: - Counters

  /// Memory charged to the app now, in bytes (v1 `memory.usage_in_bytes`, v2 `memory.current`).
  public func memoryUsage() throws -> Int64 {
    guard let value = try usage.readNumber() else { throw CgroupError(.unexpectedContent("max"), "read \(usage.path)") }
    return value
  }

  /// The highest memory charge seen, in bytes (v1 `memory.max_usage_in_bytes`, v2 `memory.peak`).
  ///
  /// - Throws: ``CgroupError`` (`unsupported`) on a v2 kernel older than 5.19, which has no `memory.peak`.
  public func peakMemory() throws -> Int64 {
    guard let peak else {
      throw CgroupError(.unsupported("this kernel has no memory.peak (Linux 5.19+)"), "read peak of \(usage.path)")
    }
    guard let value = try peak.readNumber() else { throw CgroupError(.unexpectedContent("max"), "read \(peak.path)") }
    return value
  }

  /// CPU time used by the app's processes (live and exited), in seconds (v1 `cpuacct.usage`, v2 `cpu.stat`
  /// `usage_usec`).
  public func cpuSeconds() throws -> Double {
    if location.isPureV2 { return Double(try cpuUsage.readKeyed("usage_usec")) / 1e6 }
    guard let nanoseconds = try cpuUsage.readNumber() else {
      throw CgroupError(.unexpectedContent("max"), "read \(cpuUsage.path)")
    }
    return Double(nanoseconds) / 1e9
  }

  /// How many processes the kernel's OOM killer has killed in this cgroup because of its memory cap (v1
  /// `memory.oom_control`, v2 `memory.events`, line `oom_kill`). A `kill -9` from outside does not count.
  /// Bytes the cgroup has written to block devices: the sum of `wbytes=` over `io.stat`'s devices; nil without
  /// I/O accounting (no `io.stat`).
  public func storageBytesWritten() throws -> Int64? {
    guard let ioStat else { return nil }
    return Self.writtenBytes(ioStat: try ioStat.readText())
  }

  /// The sum of `wbytes=` over the lines of an `io.stat` (`8:0 rbytes=1 wbytes=2 rios=…`, one per device).
  static func writtenBytes(ioStat text: String) -> Int64 {
    var total: Int64 = 0
    for line in text.split(separator: "\n") {
      for field in line.split(separator: " ") where field.hasPrefix("wbytes=") {
        total += Int64(field.dropFirst(7)) ?? 0
      }
    }
    return total
  }

  public func oomKillCount() throws -> Int {
    Int(try oomEvents.readKeyed("oom_kill"))
  }

  /// The processes in the app's cgroup2 directory (`cgroup.procs`), in the kernel's order.
  public func processIDs() throws -> [pid_t] { try procs.readNumberLines() }

  // MARK: - Freeze, kill, events

  /// Freezes every process of the app with the cgroup2 freezer (`cgroup.freeze` = 1; the hybrid layout's unified
  /// directory has it too). Asynchronous: ``isFrozen()`` (or `frozen 1` in ``events()``) turns true once every
  /// process has stopped.
  ///
  /// The v2 freezer rather than the v1 `freezer` controller: a v1-frozen task does not act on SIGKILL until thawed,
  /// while a v2-frozen one dies at once, so a frozen app can always be killed. Frozen tasks show state `S` (not the
  /// `T` of SIGSTOP, which the app's parent would see and anyone could undo with SIGCONT).
  public func freeze() throws { try writeTextFile(location.v2.file("cgroup.freeze"), "1") }

  /// Thaws the app (`cgroup.freeze` = 0).
  public func thaw() throws { try writeTextFile(location.v2.file("cgroup.freeze"), "0") }

  /// Whether the whole app is frozen (`frozen` in `cgroup.events`).
  public func isFrozen() throws -> Bool { try events().frozen }

  /// Whether the app has any process (`populated` in `cgroup.events`).
  public func isPopulated() throws -> Bool { try events().populated }

  /// Reads `cgroup.events` through ``eventsDescriptor`` (which re-arms its `POLLPRI`).
  public func events() throws -> CgroupEvents {
    let text = try eventsFile.readText()
    guard let populated = keyedValue("populated", in: text), let frozen = keyedValue("frozen", in: text) else {
      throw CgroupError(.unexpectedContent("\"\(text)\""), "read \(eventsFile.path)")
    }
    return CgroupEvents(populated: populated != 0, frozen: frozen != 0)
  }

  /// SIGKILLs every process of the app, frozen ones included (`cgroup.kill` = 1).
  ///
  /// A process that joins right after the write can survive it: wait for `populated 0` in ``events()`` and repeat
  /// while it stays populated.
  public func killAll() throws { try writeTextFile(location.v2.file("cgroup.kill"), "1") }

  /// Tries once to remove the app's directories in every hierarchy (the cgroup2 one first), never waiting: false
  /// while the kernel still counts processes (exiting ones too) in one of them. On v1, memory still charged (page
  /// cache) moves to the device.
  ///
  /// - Throws: ``CgroupError`` or ``SystemError`` for anything but "still busy".
  public func removeIfEmpty() throws -> Bool {
    try location.removeIfEmpty()
  }

  /// Why the app's cgroup is still busy: processes left, or child cgroups (for messages).
  public func busyError() -> Error { location.v2.busyError() }
}

extension CgroupDirectory {
  fileprivate func exists(file name: String) -> Bool { access(file(name), F_OK) == 0 }
}
