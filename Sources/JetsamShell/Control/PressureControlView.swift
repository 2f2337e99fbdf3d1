import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// What ``PressureRequests`` (pressure, device) sees of the daemon: the pressure as it stands, the balloon, the
/// policy's one way in, the waiters that answer once jetsam has acted, and the watchers to tell. The daemon hands it
/// ``DaemonControlView``; unit tests a fake.
protocol PressureControlView: PressureReportingView {
  var log: Logger { get }
  /// Whether jetsam has done what the level asks and the records of its kills are durable.
  var isJetsamSettled: Bool { get }
  /// Feeds requests to the policy, all or nothing.
  func submit(_ events: [PolicyEvent]) throws(PolicyError)
  /// Charges the device with a balloon of `bytes`, or lets it go.
  func inflateBalloon(bytes: Int64) throws
  func releaseBalloon()
  /// Answers through `then` once `check` has an outcome, or fails after `timeout` saying `what` was awaited; an
  /// outcome already known is returned instead (``ConditionWaiters/add(timeout:what:check:then:)``).
  func addWaiter(
    timeout: Duration, what: String, check: @escaping ConditionWaiters.Check,
    then: @escaping (Result<Void, ControlError>) -> Void
  ) -> Result<Void, ControlError>?
  /// Tells the watchers the device's conditions changed.
  func publishDevice(charging: Bool)
}
