import JetsamConfig
import JetsamCore

/// What the metrics read of the daemon: the exposition's figures (``MetricsFigures``) and the textfile's settings
/// and text (``MetricsTextfileView``), each read from the owner that holds it. Nothing here changes anything.
struct DaemonMetricsView: MetricsFigures, MetricsTextfileView {
  /// Unowned: the daemon owns what holds this view (its metrics outputs, the control handler).
  unowned let daemon: Daemon

  var policy: JetsamPolicy { daemon.policy }
  var cgroupMode: String { daemon.device.layout.modeName }
  var suspendMode: SuspendConfig.Mode { daemon.config.suspend.mode }
  var ramBytes: Int64 { daemon.pressure.monitor.counter.ramBytes }
  var availableBytes: Int64 { daemon.pressure.monitor.lastAvailable }
  func isConfigured(_ name: String) -> Bool { daemon.config.apps[name] != nil }
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? {
    daemon.supervisor.process(name, pid: pid)?.cgroup
  }
  var counters: ExitCounters { daemon.announcer.counters }
  var killTimings: KillTimings { daemon.announcer.killTimings }
  var recordsWritten: Int { daemon.records.written }
  var unwrittenRecords: [ExitRecord] { daemon.supervisor.records.unwritten }
  var refusedCrashReports: Int { daemon.supervisor.diagnostics?.refusedCrashReports ?? 0 }

  var metricsSettings: MetricsSettings { daemon.config.metrics }
  func expositionText() -> String { MetricsExposition.text(self) }
}
