import JetsamValues

/// Jetsam's place in the policy: samples and forced levels go to the loop, and its victims are suspended or killed
/// here, one at a time while the level is urgent or worse.
extension JetsamPolicy {
  mutating func memorySampled(available: Int64, at: Instant) -> [PolicyAction] {
    let before = level
    jetsam.sampled(available: available, thresholds: config.thresholds)
    // Warnings go out before any kill, as iOS's didReceiveMemoryWarning does.
    return jetsam.levelChange(from: before) + memoryWarnings(from: before, at: at) + runJetsam(at: at)
  }

  mutating func forceLevel(_ forced: PressureLevel?, at: Instant) -> [PolicyAction] {
    let before = level
    jetsam.force(forced)
    return jetsam.levelChange(from: before) + memoryWarnings(from: before, at: at) + runJetsam(at: at)
  }

  /// Kills the next victim if the level calls for it and nothing holds jetsam back.
  mutating func runJetsam(at: Instant) -> [PolicyAction] {
    guard jetsam.mayChoose, let victim = jetsam.victim(among: lifecycle.apps),
      let process = lifecycle.apps[victim.name]?.process
    else { return [] }
    let pid = process.pid
    let terminating = process.sentTerminate || process.channel.terminateAfterEvent != nil
    // An app on its way out is not stopped: that would only hold up its graceful end. At critical there is no
    // time for the step: the victim is killed as it is.
    let inBackground = lifecycle.apps.state(of: victim.name) == .background
    if config.suspendBeforeKill && level < .critical && inBackground && !terminating {
      // Moved to Suspended first, then unloaded as one: it is now the longest-suspended app (none other is left,
      // or it would have been chosen), so the next pass kills it.
      return suspendForPressure(victim.name, at: at) + runJetsam(at: at)
    }
    let decision = jetsam.pressure.decision(.jetsam, snapshot: jetsam.snapshot(of: lifecycle.apps, at: at))
    lifecycle.apps[victim.name]?.process?.killInFlight = decision
    jetsam.killing(victim.name, pid: pid, until: at.advanced(by: config.killTimeout))
    return [.kill(app: victim.name, pid: pid, reason: .memoryPressure, decision: decision)]
  }

  /// Suspends a running background app jetsam is about to kill, as iOS does: its background tasks get their
  /// expiration warning and end (memory is short: the app is stopped at once, not given the warning's grace).
  private mutating func suspendForPressure(_ name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for (task, taskName) in (lifecycle.apps[name]?.process?.tasks.open ?? [:]).sorted(by: { $0.key < $1.key }) {
      let warning = AppEvent(id: 0, kind: .backgroundTaskWillExpire, task: task, taskName: taskName)
      actions += acknowledging(name) { $0.deliver(warning, to: &$1, at: at) }
    }
    lifecycle.apps[name]?.process?.tasks.endAll()
    let since = lifecycle.apps[name]?.process?.backgroundStint?.since ?? at
    lifecycle.apps[name]?.process?.backgroundSecondsBeforePressureSuspension = at.seconds(since: since)
    // Not held up by a lock check: it is about to be killed for memory anyway.
    return actions + suspendNow(name, at: at, checkingLocks: false)
  }

  /// Whether jetsam has done what the level asks: no kill in flight, and no app left that it would kill at this
  /// level (what `pressure set LEVEL --wait` waits for).
  public var isJetsamSettled: Bool { jetsam.isSettled(among: lifecycle.apps) }

  /// Comparisons the victim index has made so far: the work of choosing victims and keeping their order, which
  /// tests count where time would depend on the machine.
  public var victimIndexComparisons: Int { lifecycle.apps.candidates.comparisons + lifecycle.apps.running.comparisons }
}
