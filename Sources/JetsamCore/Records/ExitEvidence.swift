/// What a kill of jetsam's policy found against the app, each for its own reason, and the diagnostics taken of the
/// process: all absent for an exit that had none.
public struct ExitEvidence: Hashable, Sendable {
  /// For `appWatchdog`: the lifecycle event whose handler hung.
  public var watchdogEvent: String?
  /// For `appWatchdog`: how long the app had been in that handler when it was killed, in seconds (from when the
  /// event before it, if any, was acknowledged: handlers run one after another).
  public var watchdogSeconds: Double?
  /// For `backgroundTaskAssertionTimeout`: the names of the tasks still open.
  public var openBackgroundTasks: [String]?
  /// For `cpuResourceLimit` from the CPU monitor: the CPU time used in the window, the window and the budget, and
  /// how long the app had stayed over it since its CPU exception.
  public var cpuUsage: CPUUsageReport?
  /// For `suspendedWithLockedFile` from the locked-file check: the locks the app held as it was suspended (file,
  /// lock type, access and holder pid).
  public var lockedFiles: [HeldLock]?
  /// The ids of the diagnostics taken of this process (its hang, CPU exceptions, crash), kept in the state
  /// directory's `diagnostics` and listed by `jetsamctl diagnostics` (filled by the shell).
  public var diagnostics: [String]?

  /// Evidence as found; an exit with none has an empty one.
  public init(
    watchdogEvent: String? = nil, watchdogSeconds: Double? = nil, openBackgroundTasks: [String]? = nil,
    cpuUsage: CPUUsageReport? = nil, lockedFiles: [HeldLock]? = nil, diagnostics: [String]? = nil
  ) {
    self.watchdogEvent = watchdogEvent
    self.watchdogSeconds = watchdogSeconds
    self.openBackgroundTasks = openBackgroundTasks
    self.cpuUsage = cpuUsage
    self.lockedFiles = lockedFiles
    self.diagnostics = diagnostics
  }
}

extension ExitEvidence {
  /// The evidence as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      watchdogEvent: try record.decodeIfPresent(String.self, forKey: .watchdogEvent),
      watchdogSeconds: try record.decodeIfPresent(Double.self, forKey: .watchdogSeconds),
      openBackgroundTasks: try record.decodeIfPresent([String].self, forKey: .openBackgroundTasks),
      cpuUsage: try record.decodeIfPresent(CPUUsageReport.self, forKey: .cpuUsage),
      lockedFiles: try record.decodeIfPresent([HeldLock].self, forKey: .lockedFiles),
      diagnostics: try record.decodeIfPresent([String].self, forKey: .diagnostics))
  }

  /// Writes the evidence into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encodeIfPresent(watchdogEvent, forKey: .watchdogEvent)
    try record.encodeIfPresent(watchdogSeconds, forKey: .watchdogSeconds)
    try record.encodeIfPresent(openBackgroundTasks, forKey: .openBackgroundTasks)
    try record.encodeIfPresent(cpuUsage, forKey: .cpuUsage)
    try record.encodeIfPresent(lockedFiles, forKey: .lockedFiles)
    try record.encodeIfPresent(diagnostics, forKey: .diagnostics)
  }
}
