/// Kills and terminates a user asks for.
extension JetsamPolicy {
  mutating func kill(_ name: String, reason: ExitReason) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard let pid = app.pid else { throw .illegalTransition(app: name, from: app.state, request: "kill") }
    // A process dies once: if a kill is already on its way, that one decides the record.
    if app.requestedKill == nil { trackedApps[name]!.requestedKill = .user(reason) }
    return [.kill(app: name, pid: pid, reason: reason, snapshot: nil)]
  }

  mutating func terminate(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.pid != nil else { throw .illegalTransition(app: name, from: app.state, request: "terminate") }
    trackedApps[name]!.sentTerminate = true
    // An app that speaks the protocol hears willTerminate first and gets its deadline to answer before the
    // SIGTERM; a suspended app cannot run a handler (iOS sends it none either).
    if app.speaksProtocol && app.state != .suspended && app.terminateAfterEvent == nil && app.terminateDeadline == nil,
      let event = deliver(name, AppEvent(id: 0, kind: .willTerminate), at: at),
      case .deliver(_, _, let delivered) = event
    {
      trackedApps[name]!.terminateAfterEvent = delivered.id
      return [event]
    }
    guard trackedApps[name]!.terminateAfterEvent == nil else { return [] }
    // Asking again repeats the SIGTERM but does not extend the grace.
    return sendTerminate(name, at: at)
  }

  /// SIGKILL for an app that ignored its SIGTERM past the grace.
  mutating func escalateTerminate(_ name: String) -> [PolicyAction] {
    trackedApps[name]!.terminateDeadline = nil
    let app = trackedApps[name]!
    // Already being killed for another reason: that kill will do.
    guard app.requestedKill == nil, let pid = app.pid else { return [] }
    trackedApps[name]!.requestedKill = .terminateEscalation
    return [.kill(app: name, pid: pid, reason: .abnormal, snapshot: nil)]
  }
}
