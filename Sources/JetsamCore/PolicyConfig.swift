/// Tunables of the policy (the shell builds this from the config file).
public struct PolicyConfig: Sendable, Equatable {
  /// Pressure thresholds in bytes available to the device.
  public var thresholds: PressureThresholds
  /// How many apps may be in the foreground at once (1 on a phone).
  public var foregroundSlots: Int
  /// A background app is suspended after this long in the background; nil: never automatically.
  public var backgroundGrace: Duration?
  /// A jetsam victim that has not exited this long after its kill no longer blocks the next kill.
  public var killTimeout: Duration
  /// Time between SIGTERM and SIGKILL for a graceful terminate.
  public var terminateGrace: Duration
  /// Watchdog deadlines and background-task budgets of the app side.
  public var lifecycle: LifecycleTimings
  /// How long an app's processes may take to stop before its suspension counts as incomplete.
  public var suspendTimeout: Duration
  /// The lowest oom_score_adj apps may get (the daemon's own, unless it may go lower).
  public var oomScoreFloor: Int32
  /// iOS's escalation: a running background app that jetsam picks at urgent is first suspended (its background
  /// tasks warned and ended), then killed as a suspended app; false: killed while it runs. (At critical every
  /// victim is killed as it is.)
  public var suspendBeforeKill = true
  /// The CPU monitor's budgets per state (already scaled by the config's time scale).
  public var cpu = CPUMonitorConfig()
  /// How many ended ad-hoc apps (``AppSettings/adHoc``) are remembered, with their last exit; past it the one
  /// that ended longest ago is forgotten, so that launching ever new names cannot grow the daemon without bound.
  public var rememberedEndedApps = 1_000
  /// How many crash diagnostics one launch of an app gets (one per crashed process at most): a program whose children
  /// crash by the hundred costs a few captures, not a capture each.
  public var crashDiagnosesPerLaunch = 8
  /// What a watchdog does while a debugger is attached to the app (iOS: holds).
  public var watchdogUnderDebugger = WatchdogDebuggerRule.hold
  /// While a debugger holds a watchdog, how often the policy asks whether it is still attached (there is no
  /// kernel notification of a tracer detaching).
  public var debuggerLookInterval: Duration = .milliseconds(250)
  /// How often suspended apps' memory is read for their average (besides once at each suspension); nil: only at
  /// the suspension. A stopped app allocates nothing (only the kernel's reclaim lowers its charge), so readings
  /// can be sparse: one `pread` per suspended app per round, and 1,000 suspended apps read every 2 s cost jetsamd
  /// 0.3 % of a core (`make bench`, idle cost), every 10 s 0.06 %.
  public var suspendedMemoryInterval: Duration? = .seconds(10)

  public init(
    thresholds: PressureThresholds, foregroundSlots: Int = 1, backgroundGrace: Duration? = nil,
    killTimeout: Duration = .seconds(2), terminateGrace: Duration = .seconds(5),
    lifecycle: LifecycleTimings = LifecycleTimings(), suspendTimeout: Duration = .seconds(1),
    oomScoreFloor: Int32 = -1000
  ) {
    self.suspendTimeout = suspendTimeout
    self.oomScoreFloor = oomScoreFloor
    self.thresholds = thresholds
    self.foregroundSlots = foregroundSlots
    self.backgroundGrace = backgroundGrace
    self.killTimeout = killTimeout
    self.terminateGrace = terminateGrace
    self.lifecycle = lifecycle
  }
}
