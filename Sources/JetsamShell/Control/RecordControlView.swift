import JetsamCore
import JetsamPlatform

/// What ``RecordRequests`` (exits, metrics, diagnostics) sees of the daemon: the record log to read off the loop, the
/// records still on their way to it, the running launches' figures, the exposition and the diagnostics kept. The
/// daemon hands it ``DaemonControlView``; unit tests a fake.
protocol RecordControlView: AnyObject {
  /// The policy as it stands: the running launches' metrics.
  var policy: JetsamPolicy { get }
  /// The cgroup of app `name` while `pid` is its running process (its CPU time and peak memory so far).
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)?
  /// The exit record log: read off the loop, from the files and size it has when asked.
  var recordLog: ExitRecordLog { get }
  /// The exit records still on their way to the log, oldest first.
  var unwrittenRecords: [ExitRecord] { get }
  /// The Prometheus exposition as it stands.
  func expositionText() -> String
  /// The diagnostics kept (read off the loop); nil when none are taken.
  var diagnostics: DiagnosticStore? { get }
}
