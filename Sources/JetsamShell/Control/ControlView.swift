import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// What ``ControlRequestHandler`` sees of the daemon: what it reports, read as it stands, and the few commands a
/// request may issue (requests to the policy through its one way in, and the shell's own: a launch spec, the
/// balloon, a watcher, a waiter). The handler holds nothing else of the daemon. The daemon hands it
/// ``DaemonControlView``; unit tests a fake.
protocol ControlView: AnyObject {
  // MARK: What it reads

  /// The config in force (a reload replaces it).
  var config: DaemonConfig { get }
  var log: Logger { get }
  /// Whether jetsamd is stopping: it takes no more launches.
  var shuttingDown: Bool { get }
  /// The policy as it stands: apps, levels, last exits.
  var policy: JetsamPolicy { get }
  /// When this jetsamd started (its uptime).
  var startedAt: Instant { get }
  /// The host's cgroup layout, by name, and the device's cgroup as shown to users.
  var cgroupMode: String { get }
  var deviceCgroup: String { get }
  /// The exit record log: read off the loop by `exits` and `metrics`, from the files and size it has when asked.
  var recordLog: ExitRecordLog { get }
  /// Exit records made durable since start.
  var recordsWritten: Int { get }
  /// The exit records still on their way to the log, oldest first.
  var unwrittenRecords: [ExitRecord] { get }
  /// Where apps of jetsamd's own user start when their config names no directory (each in `NAME` below it).
  var appsDirectory: String { get }
  /// The cgroup of app `name` while `pid` is its running process (its memory and cap).
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)?
  /// Whether app `name`'s processes were told to stop and are not all seen stopped yet.
  func isStopPending(_ name: String) -> Bool
  /// The launch and reason of app `name`'s last failed spawn.
  func spawnFailure(of name: String) -> (launch: Int, message: String)?
  /// The diagnostics kept (read off the loop); nil when none are taken.
  var diagnostics: DiagnosticStore? { get }
  /// The device's RAM, its available memory at the last sample, and the thresholds in bytes.
  var ramBytes: Int64 { get }
  var availableBytes: Int64 { get }
  var thresholds: PressureThresholds { get }
  /// The balloon of `pressure allocate`, while one is held.
  var balloon: (any MemoryBalloon)? { get }
  /// Whether jetsam has done what the level asks and the records of its kills are durable.
  var isJetsamSettled: Bool { get }
  /// The Prometheus exposition as it stands.
  func expositionText() -> String

  // MARK: What it may ask for

  /// Feeds requests to the policy, all or nothing.
  func submit(_ events: [PolicyEvent]) throws(PolicyError)
  /// Calls `then` once none of `apps` is still stopping.
  func afterSuspensions(of apps: [String], then: @escaping () -> Void)
  /// Calls `then` once the spawn of app `name` in flight has its answer (at once when none is in flight).
  func whenSpawnSettled(_ name: String, then: @escaping () -> Void)
  /// Calls `then` once the state file holds the daemon's state as it is now (at once when it does).
  func whenStateSaved(_ then: @escaping () -> Void)
  /// Stops again a suspended app someone else continued (before `ps` or `watch` answers).
  func noticeContinued()
  /// Charges the device with a balloon of `bytes`, or lets it go.
  func inflateBalloon(bytes: Int64) throws
  func releaseBalloon()
  /// Answers through `then` once `check` has an outcome, or fails after `timeout` saying `what` was awaited; an
  /// outcome already known is returned instead (``ConditionWaiters/add(timeout:what:check:then:)``).
  func addWaiter(
    timeout: Duration, what: String, check: @escaping ConditionWaiters.Check,
    then: @escaping (Result<Void, ControlError>) -> Void
  ) -> Result<Void, ControlError>?
  /// Pushes every change to `connection` from now on, and the apps' memory every `interval`.
  func watch(_ connection: ControlConnection, interval: Duration)
  /// Tells the watchers the device's conditions changed.
  func publishDevice(charging: Bool)
}
