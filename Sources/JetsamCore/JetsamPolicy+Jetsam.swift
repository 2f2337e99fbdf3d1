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
    guard let victim = nextVictim, let process = trackedApps[victim.name]?.process else { return [] }
    let pid = process.pid
    let terminating = process.sentTerminate || process.channel.terminateAfterEvent != nil
    // An app on its way out is not stopped: that would only hold up its graceful end. At critical there is no
    // time for the step: the victim is killed as it is.
    if config.suspendBeforeKill && level < .critical && trackedApps[victim.name]?.state == .background && !terminating {
      // Moved to Suspended first, then unloaded as one: it is now the longest-suspended app (none other is left,
      // or it would have been chosen), so the next pass kills it.
      return suspendForPressure(victim.name, at: at) + runJetsam(at: at)
    }
    let decision = requestKill(victim.name, .jetsam, snapshot: snapshot(at: at))
    jetsamKill = JetsamKill(app: victim.name, pid: pid, deadline: at.advanced(by: config.killTimeout))
    return [.kill(app: victim.name, pid: pid, reason: .memoryPressure, decision: decision)]
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
    return nextVictim == nil
  }

  /// The app jetsam kills next at the level in force, if any: the first of the running apps no kill was asked for
  /// (apps already being killed, including a victim past its kill timeout, are never chosen again), if its band
  /// may die at this level. The bands that may die are the lowest ones, so if the first may not, nobody may.
  ///
  /// The same choice as ``VictimSelection/victim(among:level:)`` over every app, read off the ordered index.
  var nextVictim: VictimKey? {
    guard let first = trackedApps.candidates.first, VictimSelection.mayKill(band: first.band, at: level) else {
      return nil
    }
    return first
  }

  /// Comparisons the victim index has made so far: the work of choosing victims and keeping their order, which
  /// tests count where time would depend on the machine.
  public var victimIndexComparisons: Int { trackedApps.candidates.comparisons + trackedApps.running.comparisons }

  /// Every running app at `at`, in kill order (XNU's jetsam snapshot; the shell fills in the memory).
  func snapshot(at: Instant) -> [SnapshotEntry] {
    // Walked off the ordered index: already in kill order, no sort.
    trackedApps.running.elements.compactMap { key in
      guard let app = trackedApps[key.name], let pid = app.process?.pid else { return nil }
      return SnapshotEntry(
        name: key.name, pid: pid, band: key.band, state: app.state.coarse,
        secondsInBand: at.seconds(since: key.bandEnteredAt))
    }
  }
}
