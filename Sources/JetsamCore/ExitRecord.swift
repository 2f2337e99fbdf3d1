/// One line of the durable exit log: everything known about one app process's death.
///
/// The policy fills in what it decides (reason, state, times, pressure, snapshot); the shell fills in what it
/// measures (wall-clock `time`, memory and CPU figures) before the record is written and fsync'd.
public struct ExitRecord: Codable, Hashable, Sendable {
  /// Wall-clock time of the exit, RFC 3339 (filled by the shell).
  public var time: String
  /// The app's name.
  public var app: String
  /// The main process's pid.
  public var pid: Int32
  /// Per-app launch counter: 1 for the first launch, 2 after one relaunch, …
  public var launch: Int
  /// The MetricKit exit reason.
  public var reason: ExitReason
  /// Namespace and code, e.g. `JETSAM memory-pressure`, `SIGNAL 0xb`, `EXIT 3`.
  public var terminationReason: String
  /// Who ended the app: jetsam's policy, the kernel at its memory cap, a request, a signal jetsam did not send, its
  /// own exit (absent only in records written before jetsam kept it).
  public var endedBy: ExitAgent?
  /// The coarse state the app died in: `foreground`, `background` or `suspended`.
  public var state: CoarseState
  /// The signal that ended the process, if one did.
  public var signal: Int32?
  /// The exit status, if the process exited.
  public var exitCode: Int32?
  /// Memory charged to the app's cgroup when it was killed or when its exit was seen (shell).
  public var memoryBytes: Int64
  /// The highest memory charged to the app's cgroup in its life (shell).
  public var peakMemoryBytes: Int64
  /// The app's memory cap, if it had one (shell).
  public var memoryLimitBytes: Int64?
  /// CPU time used by the app's cgroup (shell).
  public var cpuSeconds: Double
  /// Seconds from spawn to exit.
  public var aliveSeconds: Double
  /// Seconds in the state it died in (for `suspended`, from the moment its last process stopped).
  public var stateSeconds: Double
  /// The device's pressure level at the exit.
  public var pressureLevel: PressureLevel
  /// Bytes available to the device at the last sample before the exit.
  public var deviceAvailableBytes: Int64
  /// Every app at the moment jetsam chose this app as its victim (XNU's jetsam snapshot); nil otherwise.
  public var snapshot: [SnapshotEntry]?
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
  /// The ids of the diagnostics taken of this process (its hang, CPU exceptions, crash), kept in the state
  /// directory's `diagnostics` and listed by `jetsamctl diagnostics` (filled by the shell).
  public var diagnostics: [String]?
  /// For `suspendedWithLockedFile` from the locked-file check: the locks the app held as it was suspended (file,
  /// lock type, access and holder pid).
  public var lockedFiles: [HeldLock]?
  /// The app's last state summary (up to 128 bytes), handed back at its next launch (filled by the shell).
  public var stateSummary: String?
  /// The digest of the state the app last said it saved (filled by the shell).
  public var stateDigest: String?
  /// For an app jetsamd killed: the CLOCK_MONOTONIC instant, in nanoseconds, at which its SIGKILL went out
  /// (`make bench` measures reaction times from it).
  public var killSignalledNanoseconds: Int64?
  /// For an app that died suspended: true when its processes never all stopped (the suspend timed out).
  public var suspendIncomplete: Bool?
  /// The restoration verdict of this launch (`match`, `mismatch`, `unsaved`, `lost`; PROTOCOL.md), and the
  /// digest it reported restored; absent when there was nothing to judge or no verdict yet.
  public var restoration: RestorationVerdict?
  public var restoredDigest: String?
  /// Whether the app showed current state on its returns to the foreground in this launch (`fresh`, `stale`;
  /// the first stale return, else the last), the digest it showed then, how old its saved state was, and how
  /// long it had said that state stays current; absent when no return was judged.
  public var resumption: ResumptionVerdict?
  public var resumedDigest: String?
  public var resumedStateAgeSeconds: Double?
  public var resumedStateValidForSeconds: Double?

  /// Whether the launch got a verdict: on its restoration, its returns to the foreground, or both.
  public var hasVerdict: Bool { restoration != nil || resumption != nil }
  /// For an app jetsam suspended on its way to this kill (a running background app, iOS's escalation): how long it
  /// had run in the background before.
  public var backgroundSecondsBeforeSuspension: Double?
  /// What the launch measured of itself: launch and resume times, hangs, time in each state, and the exit it
  /// followed (absent in records written before jetsam kept it).
  public var launchMetrics: LaunchMetrics?
  /// The commands run for this launch (its `ready`, `digest` and hook runs: the latest
  /// ``CommandRunRecord/maxRunsKept``, `ready` once), each with how it ended and the tail of what it printed
  /// (absent when none ran, and in records written before jetsam kept them).
  public var commands: [CommandRunRecord]?

  public init(
    time: String = "", app: String, pid: Int32, launch: Int, reason: ExitReason, terminationReason: String,
    endedBy: ExitAgent? = nil, state: CoarseState, signal: Int32?, exitCode: Int32?, memoryBytes: Int64 = 0,
    peakMemoryBytes: Int64 = 0,
    memoryLimitBytes: Int64? = nil, cpuSeconds: Double = 0, aliveSeconds: Double, stateSeconds: Double,
    pressureLevel: PressureLevel, deviceAvailableBytes: Int64, snapshot: [SnapshotEntry]? = nil,
    watchdogEvent: String? = nil, openBackgroundTasks: [String]? = nil
  ) {
    self.time = time
    self.app = app
    self.pid = pid
    self.launch = launch
    self.reason = reason
    self.terminationReason = terminationReason
    self.endedBy = endedBy
    self.state = state
    self.signal = signal
    self.exitCode = exitCode
    self.memoryBytes = memoryBytes
    self.peakMemoryBytes = peakMemoryBytes
    self.memoryLimitBytes = memoryLimitBytes
    self.cpuSeconds = cpuSeconds
    self.aliveSeconds = aliveSeconds
    self.stateSeconds = stateSeconds
    self.pressureLevel = pressureLevel
    self.deviceAvailableBytes = deviceAvailableBytes
    self.snapshot = snapshot
    self.watchdogEvent = watchdogEvent
    self.openBackgroundTasks = openBackgroundTasks
  }
}
