import JetsamValues

/// A graceful end: `willTerminate` first to an app that can answer it, then the SIGTERM, then (past the grace) the
/// SIGKILL the composition asks of the app's kills.
extension Acknowledgements {
  /// A user's terminate. An app that speaks the protocol (or whose `willTerminate` a command hook answers) hears
  /// `willTerminate` first and gets its deadline to answer before the SIGTERM; a suspended app cannot run a handler
  /// (iOS sends it none either).
  func terminate(_ app: inout TrackedApp, at: Instant) throws(PolicyError) -> [PolicyAction] {
    guard let process = app.process else {
      throw .illegalTransition(app: app.name, from: app.state, request: "terminate")
    }
    app.process?.sentTerminate = true
    let answered: Bool
    if case .command = app.settings.hooks[.willTerminate] {
      answered = true
    } else {
      answered = process.channel.speaksProtocol
    }
    if answered && app.state != .suspended
      && process.channel.terminateAfterEvent == nil && process.terminateDeadline == nil
    {
      let actions = deliver(AppEvent(id: 0, kind: .willTerminate), to: &app, at: at)
      if case .deliver(_, _, let delivered) = actions.first {
        app.process?.channel.terminateAfterEvent = delivered.id
        return actions
      }
    }
    guard app.process?.channel.terminateAfterEvent == nil else { return [] }
    // Asking again repeats the SIGTERM but does not extend the grace.
    return sendTerminate(to: &app, at: at)
  }

  /// SIGTERM now, and SIGKILL if it is still alive after the grace.
  func sendTerminate(to app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    app.process?.channel.terminateAfterEvent = nil
    guard let process = app.process else { return [] }
    if process.terminateDeadline == nil {
      app.process?.terminateDeadline = at.advanced(by: rules.terminateGrace)
    }
    return [.terminate(app: app.name, pid: process.pid)]
  }
}
