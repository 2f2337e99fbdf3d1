import JetsamConfig
import JetsamCore

/// What the Prometheus exposition reads of the daemon, and nothing more: figures to render, none it could change.
/// The daemon hands it ``DaemonMetricsView``; unit tests hand it made-up figures.
protocol MetricsFigures {
  /// The policy as it stands: its apps (states, bands, pids) and the pressure level.
  var policy: JetsamPolicy { get }
  /// The host's cgroup layout, by name (`v1`, `v2`…).
  var cgroupMode: String { get }
  /// How apps are suspended, from the config in force.
  var suspendMode: SuspendConfig.Mode { get }
  /// The device's RAM (the host's in host mode), and its available memory at the last sample.
  var ramBytes: Int64 { get }
  var availableBytes: Int64 { get }
  /// Whether app `name` is in the config (its series keep their own label, whatever the ad-hoc apps do).
  func isConfigured(_ name: String) -> Bool
  /// The cgroup of app `name` while `pid` is its running process: its memory and CPU are read once per rendering.
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)?
  /// Durable records and verdicts counted since start.
  var counters: ExitCounters { get }
  /// jetsam's pressure kills timed.
  var killTimings: KillTimings { get }
  /// Exit records made durable since start.
  var recordsWritten: Int { get }
  /// Exit records decided and not durable yet: their apps have left the running set and the records are not
  /// counted yet, so their launches' figures are taken from here meanwhile (a counter never dips at an exit).
  var unwrittenRecords: [ExitRecord] { get }
  /// Crash report lines the kernel did not bear out.
  var refusedCrashReports: Int { get }
}
