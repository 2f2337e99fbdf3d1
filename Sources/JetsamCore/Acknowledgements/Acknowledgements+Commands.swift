import JetsamValues

/// Commands that speak for a program that does not speak the protocol (``AppCommands``): the acknowledgements their
/// runs give, when `ready` is polled again and with what backoff. What a digest run prints comes back as the app's
/// own `stateDigest` message would, so verdicts are judged in one place (``appMessage(_:from:of:at:)``).
extension Acknowledgements {
  /// A command hook of process `pid` ended for event `id`: the event is answered, unless the saved digest is still
  /// to be taken after it (then its run answers it).
  func hookEnded(event id: Int, pid: Int32, of app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    guard let process = app.process, process.pid == pid else { return [] }
    if process.commands.saveEvent == id && !process.commands.saveDigestRunning {
      return app.startSavedDigest()
    }
    return acknowledged(id, pid: pid, of: &app, at: at)
  }

  /// A run of one of the app's commands ended (`succeeded`: `ready` exited 0; a digest was printed and reported).
  func commandEnded(
    _ run: AppCommandRun, succeeded: Bool, pid: Int32, of app: inout TrackedApp, at: Instant
  ) -> [PolicyAction] {
    guard let process = app.process, process.pid == pid else { return [] }
    switch run {
    case .ready:
      guard let event = process.commands.readyEvent, process.channel.pendingAcks[event] != nil else { return [] }
      guard succeeded else {
        // Polled again after a pause that grows, until it succeeds or the launch's watchdog ends the app.
        let pause = AppCommands.readyBackoff(afterAttempt: process.commands.readyAttempts)
        app.process?.commands.nextReadyRun = at.advanced(by: pause)
        return []
      }
      app.process?.commands.readyEvent = nil
      var actions = acknowledged(event, pid: pid, of: &app, at: at)
      // What the previous launch left must now be back: the program is up, so what it holds can be read.
      if app.settings.commands.digest != nil, process.restoration.previousDigest != nil,
        process.restoration.restoredDigest == nil
      {
        actions += app.commandAction(.digest(.restored, validFor: nil))
      }
      return actions
    case .digest(.saved, _):
      guard let event = process.commands.saveEvent else { return [] }
      app.process?.commands.saveEvent = nil
      app.process?.commands.saveDigestRunning = false
      return acknowledged(event, pid: pid, of: &app, at: at)
    case .digest(.restored, _), .digest(.resumed, _):
      // Its digest, if it printed one, came as the app's message; nothing waits for the run itself.
      return []
    }
  }

  /// The next poll of `ready`, when its pause after a failed one is over. A suspended program cannot answer: its
  /// poll waits (with no tick asked for it, ``JetsamPolicy/nextDeadline``) and runs once it is back.
  func commandsTick(of app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    guard let next = app.process?.commands.nextReadyRun, next <= at, app.state != .suspended else { return [] }
    app.process?.commands.nextReadyRun = nil
    guard let event = app.process?.commands.readyEvent, app.process?.channel.pendingAcks[event] != nil,
      app.requestedKill == nil
    else { return [] }
    return app.startReady()
  }
}
