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
    guard let pid = app.pid else { throw .illegalTransition(app: name, from: app.state, request: "terminate") }
    trackedApps[name]!.sentTerminate = true
    // Asking again repeats the SIGTERM but does not extend the grace.
    if app.terminateDeadline == nil {
      trackedApps[name]!.terminateDeadline = at.advanced(by: config.terminateGrace)
    }
    return [.terminate(app: name, pid: pid)]
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
