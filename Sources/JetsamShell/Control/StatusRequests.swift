import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Answers `status`, `ps` and `watch`: what the daemon, its apps and its pressure are now, and for a watcher every
/// change from then on (``LiveFeed``). It decides nothing.
final class StatusRequests {
  /// All it sees of the daemon, and all it may ask of it.
  private let daemon: any StatusControlView

  init(daemon: any StatusControlView) {
    self.daemon = daemon
  }

  func psResponse() -> ControlResponse {
    // A suspended app someone else continued is stopped again before the answer, which then says "stopping".
    daemon.noticeContinued()
    var response = ControlResponse(ok: true)
    response.apps = daemon.policy.apps.map(daemon.appInfo)
    return response
  }

  func statusResponse() -> ControlResponse {
    var counts: [String: Int] = [:]
    for (state, count) in daemon.policy.appCountsByState { counts[state.coarseName, default: 0] += count }
    var response = ControlResponse(ok: true)
    response.status = StatusInfo(
      version: Daemon.version, uptimeSeconds: MonotonicClock.now().seconds(since: daemon.startedAt),
      cgroupMode: daemon.cgroupMode, suspendMode: daemon.config.suspend.mode.rawValue,
      deviceCgroup: daemon.deviceCgroup, appsByState: counts, recordsWritten: daemon.recordsWritten,
      recordLog: daemon.recordLog.path)
    return response
  }

  /// The whole picture now; from then on, every change is pushed on this connection (``LiveFeed``).
  func watch(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse {
    let interval = try request.watchInterval()
    daemon.noticeContinued()
    var response = ControlResponse(ok: true)
    response.watch = WatchSnapshot(
      monotonicNanoseconds: MonotonicClock.now().nanoseconds, apps: daemon.policy.apps.map(daemon.appInfo),
      pressure: daemon.pressureInfo(), device: DeviceInfo(charging: daemon.policy.deviceCharging),
      intervalSeconds: interval.seconds)
    daemon.watch(connection, interval: interval)
    return response
  }
}
