import JetsamValues

/// The end of an app's process: classify it, record it, and let jetsam move on.
extension JetsamPolicy {
  mutating func exited(_ name: String, pid: Int32, end: ProcessEnd, oomKilled: Bool, at: Instant) -> [PolicyAction] {
    // An exit of an earlier process (or of an app we do not know) says nothing about the current one.
    guard let app = lifecycle.apps[name], let process = app.process, process.pid == pid else { return [] }
    let classification = ExitClassification.classify(
      end, requestedKill: process.requestedKill, sentTerminate: process.sentTerminate, oomKilled: oomKilled)
    // A suspended app's time counts from when its last process stopped, which is its band clock.
    let stateSince = app.state == .suspended ? app.bandEnteredAt : app.stateEnteredAt
    var record = ExitRecord(
      app: name, pid: pid, launch: app.launch, cause: ExitCause(classification, end: end),
      lifecycle: ExitLifecycle(
        state: app.state.coarse, aliveSeconds: at.seconds(since: process.spawnedAt),
        stateSeconds: at.seconds(since: stateSince)),
      pressure: process.killInFlight.map(ExitPressure.init) ?? ExitPressure(jetsam.pressure))
    record.cause.killSignalledNanoseconds = process.killSignalledAt?.nanoseconds
    record.usage.memoryBytes = process.memoryAtKill ?? 0
    record.savedState.summary = app.summary
    // The digest carries over launches until the app reports a newer one: a launch that restored the state and
    // changed nothing leaves what the launch before it saved.
    record.savedState.digest = process.restoration.savedDigest ?? process.restoration.previousDigest
    if app.state == .suspended && process.suspendIncomplete { record.lifecycle.suspendIncomplete = true }
    record.lifecycle.backgroundSecondsBeforeSuspension = process.backgroundSecondsBeforePressureSuspension
    // The launch's verdict goes into its durable record (a launch that died before it was judged has none).
    if let verdict = process.restoration.verdict, verdict != .pending {
      record.savedState.restoration = verdict
      record.savedState.restoredDigest = process.restoration.restoredDigest
    }
    if let resumption = process.restoration.resumption {
      record.savedState.resumption = resumption.verdict
      record.savedState.resumedDigest = resumption.resumedDigest
      record.savedState.resumedStateAgeSeconds = resumption.stateAgeSeconds
      record.savedState.resumedStateValidForSeconds = resumption.validForSeconds
    }
    // The kill's evidence, when the kill is what the process died of (a crash on its way out is recorded as such).
    switch process.requestedKill {
    case .watchdog(let event, let seconds)?:
      guard classification.reason == .appWatchdog else { break }
      record.evidence.watchdogEvent = event.rawValue
      record.evidence.watchdogSeconds = seconds
    case .backgroundTaskTimeout(let tasks)?:
      guard classification.reason == .backgroundTaskAssertionTimeout else { break }
      record.evidence.openBackgroundTasks = tasks
    case .cpuLimit(let usage)?:
      guard classification.reason == .cpuResourceLimit else { break }
      record.evidence.cpuUsage = usage
    case .lockedFile(let locks)?:
      guard classification.reason == .suspendedWithLockedFile else { break }
      record.evidence.lockedFiles = locks
    case .jetsam?, .user?, .terminateEscalation?, nil:
      break
    }

    // The move counts the last stint into the launch's metrics, which the record then carries.
    let changed = afterMoves([lifecycle.move(name, to: .terminated, at: at)], at: at)
    record.launchMetrics = lifecycle.apps[name]?.process?.metrics
    if let runs = lifecycle.apps[name]?.process?.commands.kept, !runs.isEmpty { record.commands = runs }
    var actions = changed + [.recordExit(record)]
    // Everything about the process goes with it; the summary stays (the app's, handed to its next launch).
    lifecycle.apps[name]?.process = nil
    diskWrites.forget(name)
    signposts.forget(name)
    // Until the shell reports it written (with its time), the decided record is what the next launch hears of.
    exits.decided(record)
    jetsam.exited(name, pid: pid)
    actions += runJetsam(at: at)
    return actions
  }

  /// A record is durable: it becomes the app's last exit (a later launch's reason and what it is told). Ended
  /// ad-hoc apps past ``PolicyConfig/rememberedEndedApps`` are forgotten, the longest ended first.
  mutating func exitRecorded(_ record: ExitRecord) -> [PolicyAction] {
    guard exits.recorded(record) else { return [] }
    if let app = lifecycle.apps[record.app] {
      guard !app.state.isRunning else { return [] }
      lifecycle.apps[record.app]?.launch = max(app.launch, record.launch)
      guard app.settings.adHoc else { return [] }
    }
    // An ended ad-hoc app, or one known only from the records of earlier runs.
    let forgotten = exits.ended(record.app, remembered: config.rememberedEndedApps, apps: lifecycle.apps)
    for name in forgotten { lifecycle.apps[name] = nil }
    return forgotten.map { .forget(app: $0) }
  }
}
