import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// What the control request families see of the daemon (``AppControlView``, ``StatusControlView``,
/// ``PressureControlView``, ``RecordControlView``), each read from or asked of the owner that holds it: the policy
/// through the policy loop, apps through the supervisor, pressure through the pressure control, watchers through
/// the live feed.
final class DaemonControlView: AppControlView, StatusControlView, PressureControlView, RecordControlView {
  /// Unowned: the daemon owns the control server, which owns the handler that holds this view.
  private unowned let daemon: Daemon
  let startedAt: Instant

  init(daemon: Daemon, startedAt: Instant) {
    self.daemon = daemon
    self.startedAt = startedAt
  }

  var config: DaemonConfig { daemon.config }
  var log: Logger { daemon.log }
  var shuttingDown: Bool { daemon.stopPhase != .running }
  var policy: JetsamPolicy { daemon.policy }
  var cgroupMode: String { daemon.device.layout.modeName }
  var deviceCgroup: String { daemon.device.displayPath }
  var recordLog: ExitRecordLog { daemon.records.log }
  var recordsWritten: Int { daemon.records.written }
  var unwrittenRecords: [ExitRecord] { daemon.supervisor.records.unwritten }
  var appsDirectory: String { daemon.supervisor.requests.stateDirectory + "/apps" }
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? {
    daemon.supervisor.process(name, pid: pid)?.cgroup
  }
  func isStopPending(_ name: String) -> Bool { daemon.supervisor.isStopPending(name) }
  func spawnFailure(of name: String) -> (launch: Int, message: String)? { daemon.supervisor.spawnFailure(of: name) }
  var diagnostics: DiagnosticStore? { daemon.supervisor.diagnostics?.reader }
  var ramBytes: Int64 { daemon.pressure.monitor.counter.ramBytes }
  var availableBytes: Int64 { daemon.pressure.monitor.lastAvailable }
  var thresholds: PressureThresholds { daemon.pressure.thresholds }
  var balloon: (any MemoryBalloon)? { daemon.pressure.balloon }
  var isJetsamSettled: Bool { daemon.policy.isJetsamSettled && daemon.supervisor.records.unwritten.isEmpty }
  func expositionText() -> String { DaemonMetricsView(daemon: daemon).expositionText() }

  func submit(_ events: [PolicyEvent]) throws(PolicyError) { try daemon.submit(events) }
  func afterSuspensions(of apps: [String], then: @escaping () -> Void) {
    daemon.afterSuspensions(of: apps, then: then)
  }
  func whenSpawnSettled(_ name: String, then: @escaping () -> Void) {
    daemon.supervisor.launches.whenSpawnSettled(name, then)
  }
  func whenStateSaved(_ then: @escaping () -> Void) { daemon.stateKeeper.whenSaved(then) }
  func noticeContinued() { daemon.supervisor.suspender.noticeContinued() }
  func inflateBalloon(bytes: Int64) throws {
    try daemon.pressure.inflateBalloon(bytes: bytes, helper: Daemon.helperPath)
  }
  func releaseBalloon() { daemon.pressure.releaseBalloon() }
  func addWaiter(
    timeout: Duration, what: String, check: @escaping ConditionWaiters.Check,
    then: @escaping (Result<Void, ControlError>) -> Void
  ) -> Result<Void, ControlError>? {
    daemon.pressure.waiters.add(timeout: timeout, what: what, check: check, then: then)
  }
  func watch(_ connection: ControlConnection, interval: Duration) { daemon.live.watch(connection, interval: interval) }
  func publishDevice(charging: Bool) { daemon.live.publishDevice(charging: charging) }
}
