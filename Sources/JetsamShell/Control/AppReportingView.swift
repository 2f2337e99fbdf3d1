import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// What reporting an app takes (its state, its cgroup's figures, whether its stop is still pending): shared by the
/// families that answer with apps (``AppControlView``, ``StatusControlView``).
protocol AppReportingView: AnyObject {
  /// The policy as it stands: apps, levels, last exits.
  var policy: JetsamPolicy { get }
  /// The cgroup of app `name` while `pid` is its running process (its memory and cap).
  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)?
  /// Whether app `name`'s processes were told to stop and are not all seen stopped yet.
  func isStopPending(_ name: String) -> Bool
}

extension AppReportingView {
  /// An answer carrying app `name` as it stands.
  func appResponse(_ name: String) -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.app = policy.app(named: name).map(appInfo)
    return response
  }

  /// The app as a client sees it: the policy's status, the one value its view is made from, with what the shell
  /// measures beside it (its cgroup's figures, its time in its state, whether its stop is still under way).
  func appInfo(_ status: AppStatus) -> AppInfo {
    var status = status
    // An app known only from its records (not launched since this daemon started) has its summary there.
    if status.summary == nil { status.summary = policy.lastExit(of: status.name)?.savedState.summary }
    let running = status.state.isRunning ? status.pid.flatMap { self.cgroup(of: status.name, pid: $0) } : nil
    return AppInfo(
      status: status,
      measured: AppMeasurements(
        memoryBytes: (try? running?.memoryUsage()) ?? 0,
        memoryLimitBytes: (try? running?.memoryLimit()) ?? nil,
        // An app this daemon has not seen change state yet (never launched, or ended before a restart) has no
        // time in its state to speak of.
        stateSeconds: status.stateEnteredAt.nanoseconds == 0
          ? 0 : MonotonicClock.now().seconds(since: status.stateEnteredAt),
        stopping: status.state == .suspended && !status.suspendIncomplete && isStopPending(status.name)))
  }
}
