/// One line of the durable exit log: everything known about one app process's death.
///
/// The policy fills in what it decides (the cause, the state, times, pressure, snapshot, evidence, verdicts); the
/// shell fills in what it measures (wall-clock `time`, the cgroup's usage, the diagnostics taken) before the record
/// is written and fsync'd. The facts are grouped by concern; on disk the record is still one flat JSON object with
/// the keys it always had (``ExitRecord/CodingKeys``), so that every record ever written reads back.
public struct ExitRecord: Hashable, Sendable {
  /// Wall-clock time of the exit, RFC 3339 (filled by the shell).
  public var time: String
  /// The app's name.
  public var app: String
  /// The main process's pid.
  public var pid: Int32
  /// Per-app launch counter: 1 for the first launch, 2 after one relaunch, …
  public var launch: Int
  /// Why and how the process ended: the MetricKit reason, the code, who ended it, its signal or exit status.
  public var cause: ExitCause
  /// The coarse state it died in and how long it had been in it, and alive.
  public var lifecycle: ExitLifecycle
  /// What its cgroup used: memory at the end, the peak, the cap, CPU time (shell).
  public var usage: ExitResourceUsage
  /// The device's pressure at the exit, and jetsam's snapshot when it chose this app as its victim.
  public var pressure: ExitPressure
  /// What a kill of jetsam's policy found (the hung event, the open tasks, the CPU figures, the locks), and the
  /// diagnostics taken of the process.
  public var evidence: ExitEvidence
  /// The app's own state: its summary, its digest, and the verdicts on restoring and resuming it.
  public var savedState: ExitSavedState
  /// What the launch measured of itself: launch and resume times, hangs, time in each state, and the exit it
  /// followed (absent in records written before jetsam kept it).
  public var launchMetrics: LaunchMetrics?
  /// The commands run for this launch (its `ready`, `digest` and hook runs: the latest
  /// ``CommandRunRecord/maxRunsKept``, `ready` once), each with how it ended and the tail of what it printed
  /// (absent when none ran, and in records written before jetsam kept them).
  public var commands: [CommandRunRecord]?

  /// A record from its parts; what only the shell measures, and what only some exits have, starts empty.
  public init(
    time: String = "", app: String, pid: Int32, launch: Int, cause: ExitCause, lifecycle: ExitLifecycle,
    usage: ExitResourceUsage = ExitResourceUsage(), pressure: ExitPressure, evidence: ExitEvidence = ExitEvidence(),
    savedState: ExitSavedState = ExitSavedState(), launchMetrics: LaunchMetrics? = nil,
    commands: [CommandRunRecord]? = nil
  ) {
    self.time = time
    self.app = app
    self.pid = pid
    self.launch = launch
    self.cause = cause
    self.lifecycle = lifecycle
    self.usage = usage
    self.pressure = pressure
    self.evidence = evidence
    self.savedState = savedState
    self.launchMetrics = launchMetrics
    self.commands = commands
  }
}
