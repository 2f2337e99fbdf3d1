import JetsamValues

/// Apps that survived a daemon restart, taken back.
extension Lifecycle {
  /// An app that survived a daemon restart joins in the state it was left in, which this returns (nil: it is not
  /// taken, having no process). A launching app counts as background (its launch outcome was lost with the old
  /// daemon); a background app's grace starts over. Everything its saved status holds comes back, but whether a
  /// suspension completed: the processes the new daemon saw (`observedStopped`) decide that.
  mutating func adopt(_ adopted: AppStatus, at: Instant) -> LifecycleState? {
    guard let pid = adopted.pid, let spawnedAt = adopted.spawnedAt else { return nil }
    var state: LifecycleState
    switch adopted.state {
    case .notRunning, .terminated: return nil
    case .launching: state = .background
    default: state = adopted.state
    }
    var bandEnteredAt = adopted.bandEnteredAt
    if adopted.observedStopped == true && state != .suspended {
      // Stopped after the last save: suspended since now, as far as anyone can tell.
      state = .suspended
      bandEnteredAt = at
    } else if adopted.observedStopped == false && state == .suspended {
      state = .background
    }
    // The settings are those the configure before the adoption gave (the saved ones, launch spec and ad hoc or not
    // included, or the config's); the band lift is the saved one.
    var settings = apps[adopted.name]?.settings ?? AppSettings(launch: nil)
    settings.bandFloor = adopted.bandFloor
    var app = TrackedApp(name: adopted.name, settings: settings, launch: adopted.launch, at: adopted.stateEnteredAt)
    app.summary = adopted.summary
    app.state = state
    app.bandEnteredAt = bandEnteredAt
    var process = RunningProcess(pid: pid, spawnedAt: spawnedAt, previousDigest: adopted.previousDigest)
    process.restoration.savedDigest = adopted.savedDigest
    process.restoration.restoredDigest = adopted.restoredDigest
    process.restoration.savedAt = adopted.savedAt
    if let savedAt = adopted.savedAt, let validUntil = adopted.savedValidUntil {
      process.restoration.savedValidFor = validUntil.duration(since: savedAt)
    }
    process.restoration.resumption = adopted.resumption
    // A restore still owed keeps its deadline (the successor's ticks judge it `lost` in time).
    process.restoration.deadline = adopted.restorationDeadline
    process.restoration.lost = adopted.restorationLost
    process.continuedByOthers = adopted.continuedByOthers
    process.metrics = adopted.launchMetrics ?? LaunchMetrics()
    // Time suspended in this stay away from the foreground counts from the current suspension only (earlier
    // suspensions of the same stay, rare, are not in the state file).
    process.away = adopted.awaySince.map { AwayStint(since: $0) }
    if state.holdsForegroundSlot { app.foregroundArrival = takeForegroundArrival() }
    if state == .background {
      process.backgroundStint = BackgroundStint(since: at)
      process.graceDeadline = rules.backgroundGrace.map { at.advanced(by: $0) }
    }
    // The previous daemon's SIGKILL went out before this was saved (the state file is written after the kill):
    // the process is dead or dying, and its kill decides its record.
    process.killInFlight = adopted.killInFlight
    app.process = process
    apps[adopted.name] = app
    return state
  }
}
