import JetsamConfig
import JetsamCore
import JetsamPlatform

/// What ``AppRequests`` (launch, the lifecycle verbs) sees of the daemon: the apps as they stand, and the policy's one
/// way in with the waits that answer a request once what it asked for has happened. The daemon hands it
/// ``DaemonControlView``; unit tests a fake.
protocol AppControlView: AppReportingView {
  /// The config in force (a reload replaces it).
  var config: DaemonConfig { get }
  var log: Logger { get }
  /// Whether jetsamd is stopping: it takes no more launches.
  var shuttingDown: Bool { get }
  /// Where apps of jetsamd's own user start when their config names no directory (each in `NAME` below it).
  var appsDirectory: String { get }
  /// The launch and reason of app `name`'s last failed spawn.
  func spawnFailure(of name: String) -> (launch: Int, message: String)?
  /// Feeds requests to the policy, all or nothing.
  func submit(_ events: [PolicyEvent]) throws(PolicyError)
  /// Calls `then` once none of `apps` is still stopping.
  func afterSuspensions(of apps: [String], then: @escaping () -> Void)
  /// Calls `then` once the spawn of app `name` in flight has its answer (at once when none is in flight).
  func whenSpawnSettled(_ name: String, then: @escaping () -> Void)
  /// Calls `then` once the state file holds the daemon's state as it is now (at once when it does).
  func whenStateSaved(_ then: @escaping () -> Void)
}
