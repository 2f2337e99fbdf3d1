import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamValues

/// What ``StatusRequests`` (status, ps, watch) sees of the daemon: figures to read, the apps and the pressure as
/// they stand, and the live feed to hand a watcher to. The daemon hands it ``DaemonControlView``; unit tests a fake.
protocol StatusControlView: AppReportingView, PressureReportingView {
  /// When this jetsamd started (its uptime).
  var startedAt: Instant { get }
  /// The host's cgroup layout, by name, and the device's cgroup as shown to users.
  var cgroupMode: String { get }
  var deviceCgroup: String { get }
  /// Exit records made durable since start, and where they go.
  var recordsWritten: Int { get }
  var recordLog: ExitRecordLog { get }
  /// Stops again a suspended app someone else continued (before `ps` or `watch` answers).
  func noticeContinued()
  /// Pushes every change to `connection` from now on, and the apps' memory every `interval`.
  func watch(_ connection: ControlConnection, interval: Duration)
}
