import JetsamValues

/// A jetsam kill waiting for its victim to exit.
struct JetsamKill: Sendable {
  var app: String
  var pid: Int32
  /// After this the victim no longer blocks the next kill.
  var deadline: Instant
}

/// The jetsam loop: one victim at a time while the level is urgent or worse.
extension JetsamPolicy {
  /// Kills the next victim if the level calls for it and nothing holds jetsam back.
  mutating func runJetsam(at: Instant) -> [PolicyAction] {
    // While a level is forced no sample can change it, so waiting for one would stall the loop.
    guard level >= .urgent, jetsamKill == nil, !owesFreshSample || forcedLevel != nil else { return [] }
    // Apps already being killed (including a victim past its kill timeout) are never chosen again.
    let candidates = trackedApps.values.filter { $0.requestedKill == nil }.map(\.status)
    guard let victim = VictimSelection.victim(among: candidates, level: level), let pid = victim.pid else {
      return []
    }
    let process = trackedApps[victim.name]?.process
    let terminating = process?.sentTerminate == true || process?.channel.terminateAfterEvent != nil
    // An app on its way out is not stopped: that would only hold up its graceful end. At critical there is no
    // time for the step: the victim is killed as it is.
    if config.suspendBeforeKill && level < .critical && victim.state == .background && !terminating {
      // Moved to Suspended first, then unloaded as one: it is now the longest-suspended app (none other is left,
      // or it would have been chosen), so the next pass kills it.
      return suspendForPressure(victim.name, at: at) + runJetsam(at: at)
    }
    let snapshot = snapshot(at: at)
    requestKill(victim.name, .jetsam)
    trackedApps[victim.name]?.process?.jetsamSnapshot = snapshot
    jetsamKill = JetsamKill(app: victim.name, pid: pid, deadline: at.advanced(by: config.killTimeout))
    return [.kill(app: victim.name, pid: pid, reason: .memoryPressure, snapshot: snapshot)]
  }

  /// Suspends a running background app jetsam is about to kill, as iOS does: its background tasks get their
  /// expiration warning and end (memory is short: the app is stopped at once, not given the warning's grace).
  private mutating func suspendForPressure(_ name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for (task, taskName) in (trackedApps[name]?.process?.tasks.open ?? [:]).sorted(by: { $0.key < $1.key }) {
      actions += deliver(name, AppEvent(id: 0, kind: .backgroundTaskWillExpire, task: task, taskName: taskName), at: at)
    }
    trackedApps[name]?.process?.tasks.endAll()
    let since = trackedApps[name]?.process?.backgroundStint?.since ?? at
    trackedApps[name]?.process?.backgroundSecondsBeforePressureSuspension = at.seconds(since: since)
    // Not held up by a lock check: it is about to be killed for memory anyway.
    return actions + suspendNow(name, at: at, checkingLocks: false)
  }

  /// Whether jetsam has done what the level asks: no kill in flight, and no app left that it would kill at this
  /// level (what `pressure set LEVEL --wait` waits for).
  public var isJetsamSettled: Bool {
    guard level >= .urgent else { return true }
    guard jetsamKill == nil else { return false }
    let candidates = trackedApps.values.filter { $0.requestedKill == nil }.map(\.status)
    return VictimSelection.victim(among: candidates, level: level) == nil
  }

  /// Every running app at `at`, in kill order (XNU's jetsam snapshot; the shell fills in the memory).
  func snapshot(at: Instant) -> [SnapshotEntry] {
    let running = trackedApps.values.filter { $0.state.isRunning && $0.process != nil }.map(\.status)
    return VictimSelection.killOrder(running).compactMap { app in
      app.pid.map { pid in
        SnapshotEntry(
          name: app.name, pid: pid, band: app.band, state: app.state.coarseName,
          secondsInBand: at.seconds(since: app.bandEnteredAt))
      }
    }
  }
}
