/// The end of an app's process: classify it, record it, and let jetsam move on.
extension JetsamPolicy {
  mutating func exited(_ name: String, pid: Int32, end: ProcessEnd, oomKilled: Bool, at: Instant) -> [PolicyAction] {
    // An exit of an earlier process (or of an app we do not know) says nothing about the current one.
    guard let app = trackedApps[name], app.pid == pid, let spawnedAt = app.spawnedAt else { return [] }
    let classification = ExitClassification.classify(
      end, requestedKill: app.requestedKill, sentTerminate: app.sentTerminate, oomKilled: oomKilled)
    // A suspended app's time counts from when its last process stopped, which is its band clock.
    let stateSince = app.state == .suspended ? app.bandEnteredAt : app.stateEnteredAt
    var record = ExitRecord(
      app: name, pid: pid, launch: app.launch, reason: classification.reason,
      terminationReason: classification.terminationReason, state: app.state.coarseName, signal: end.signal,
      exitCode: end.exitCode, aliveSeconds: at.seconds(since: spawnedAt), stateSeconds: at.seconds(since: stateSince),
      pressureLevel: level, deviceAvailableBytes: availableBytes ?? 0, snapshot: app.jetsamSnapshot)
    switch app.requestedKill {
    case .watchdog(let event) where classification.reason == .appWatchdog: record.watchdogEvent = event.rawValue
    case .backgroundTaskTimeout(let tasks) where classification.reason == .backgroundTaskAssertionTimeout:
      record.openBackgroundTasks = tasks
    default: break
    }

    var actions = [move(name, to: .terminated, at: at), .recordExit(record)]
    trackedApps[name]!.forgetProcess()
    if let kill = jetsamKill, kill.app == name, kill.pid == pid {
      // The victim's memory is back, but the last sample does not show it yet.
      jetsamKill = nil
      owesFreshSample = true
    }
    actions += runJetsam(at: at)
    return actions
  }
}
