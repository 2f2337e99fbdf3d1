import JetsamValues

/// Commands that speak for a program that does not speak the protocol (``AppCommands``): when `ready` is polled and
/// with what backoff, when `digest` runs and for which phase. What a digest run prints comes back as the app's own
/// `stateDigest` message would, so verdicts are judged in one place (``appMessage(_:pid:message:at:)``).
extension JetsamPolicy {
  /// The runs a delivered event starts: `ready` at `didFinishLaunching`, the saved digest at `didEnterBackground`
  /// (unless the event's command hook runs first: then at its end), the resumed digest at the `didBecomeActive` that
  /// ends a return. Also notes which events the commands answer.
  mutating func commandRuns(for event: AppEvent, of name: String, hookRuns: Bool, at: Instant) -> [PolicyAction] {
    guard let commands = lifecycle.apps[name]?.settings.commands, !commands.isEmpty else { return [] }
    switch event.kind {
    case .didFinishLaunching where commands.ready != nil:
      lifecycle.apps[name]?.process?.commands.readyEvent = event.id
      return lifecycle.apps[name]?.startReady() ?? []
    case .didEnterBackground where commands.digest != nil:
      lifecycle.apps[name]?.process?.commands.saveEvent = event.id
      return hookRuns ? [] : lifecycle.apps[name]?.startSavedDigest() ?? []
    case .didBecomeActive where commands.digest != nil && commands.digestValidFor != nil && event.backgroundFor != nil:
      return lifecycle.apps[name]?.commandAction(.digest(.resumed, validFor: nil)) ?? []
    default:
      return []
    }
  }

  /// A command hook ended for event `id`: the event is answered, unless the saved digest is still to be taken after
  /// it (then its run answers it).
  mutating func hookEnded(_ name: String, pid: Int32, event id: Int, at: Instant) -> [PolicyAction] {
    guard let process = lifecycle.apps[name]?.process, process.pid == pid else { return [] }
    if process.commands.saveEvent == id && !process.commands.saveDigestRunning {
      return lifecycle.apps[name]?.startSavedDigest() ?? []
    }
    return acknowledged(name, pid: pid, event: id, at: at)
  }

  /// A run of one of the app's commands ended (`succeeded`: `ready` exited 0; a digest was printed and reported).
  mutating func commandEnded(
    _ name: String, pid: Int32, run: AppCommandRun, succeeded: Bool, at: Instant
  ) -> [PolicyAction] {
    guard let process = lifecycle.apps[name]?.process, process.pid == pid else { return [] }
    switch run {
    case .ready:
      guard let event = process.commands.readyEvent, process.channel.pendingAcks[event] != nil else { return [] }
      guard succeeded else {
        // Polled again after a pause that grows, until it succeeds or the launch's watchdog ends the app.
        let pause = AppCommands.readyBackoff(afterAttempt: process.commands.readyAttempts)
        lifecycle.apps[name]?.process?.commands.nextReadyRun = at.advanced(by: pause)
        return []
      }
      lifecycle.apps[name]?.process?.commands.readyEvent = nil
      var actions = acknowledged(name, pid: pid, event: event, at: at)
      // What the previous launch left must now be back: the program is up, so what it holds can be read.
      if lifecycle.apps[name]?.settings.commands.digest != nil, process.restoration.previousDigest != nil,
        process.restoration.restoredDigest == nil
      {
        actions += lifecycle.apps[name]?.commandAction(.digest(.restored, validFor: nil)) ?? []
      }
      return actions
    case .digest(.saved, _):
      guard let event = process.commands.saveEvent else { return [] }
      lifecycle.apps[name]?.process?.commands.saveEvent = nil
      lifecycle.apps[name]?.process?.commands.saveDigestRunning = false
      return acknowledged(name, pid: pid, event: event, at: at)
    case .digest(.restored, _), .digest(.resumed, _):
      // Its digest, if it printed one, came as the app's message; nothing waits for the run itself.
      return []
    }
  }

  /// The next poll of `ready`, when its pause after a failed one is over. A suspended program cannot answer: its
  /// poll waits (with no tick asked for it, ``nextDeadline``) and runs once it is back.
  mutating func commandsTick(_ name: String, at: Instant) -> [PolicyAction] {
    guard let next = lifecycle.apps[name]?.process?.commands.nextReadyRun, next <= at,
      lifecycle.apps[name]?.state != .suspended
    else { return [] }
    lifecycle.apps[name]?.process?.commands.nextReadyRun = nil
    guard let event = lifecycle.apps[name]?.process?.commands.readyEvent,
      lifecycle.apps[name]?.process?.channel.pendingAcks[event] != nil, lifecycle.apps[name]?.requestedKill == nil
    else { return [] }
    return lifecycle.apps[name]?.startReady() ?? []
  }
}
