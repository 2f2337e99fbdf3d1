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

  /// The app as a client sees it: the policy's status with its cgroup's figures.
  func appInfo(_ status: AppStatus) -> AppInfo {
    let running = status.state.isRunning ? status.pid.flatMap { self.cgroup(of: status.name, pid: $0) } : nil
    var info = AppInfo(
      name: status.name, pid: status.state.isRunning ? status.pid : nil, state: status.state.coarseName,
      lifecycleState: status.state, band: status.band,
      memoryBytes: (try? running?.memoryUsage()) ?? 0,
      memoryLimitBytes: (try? running?.memoryLimit()) ?? nil,
      // An app this daemon has not seen change state yet (never launched, or ended before a restart) has no
      // time in its state to speak of.
      stateSeconds: status.stateEnteredAt.nanoseconds == 0
        ? 0 : MonotonicClock.now().seconds(since: status.stateEnteredAt),
      launch: status.launch)
    if status.state.isRunning {
      info.restoration = status.restoration?.rawValue
      info.previousDigest = status.previousDigest
      info.restoredDigest = status.restoredDigest
      info.savedDigest = status.savedDigest
      info.resumption = status.resumption?.verdict.rawValue
      info.resumedDigest = status.resumption?.resumedDigest
      info.speaksProtocol = status.speaksProtocol
      if status.continuedByOthers > 0 { info.continuedWhileSuspended = status.continuedByOthers }
      if status.suspendIncomplete {
        info.suspendIncomplete = true
      } else if status.state == .suspended && isStopPending(status.name) {
        info.stopping = true
      }
    }
    info.stateSummary = status.summary ?? policy.lastExit(of: status.name)?.savedState.summary
    return info
  }
}
