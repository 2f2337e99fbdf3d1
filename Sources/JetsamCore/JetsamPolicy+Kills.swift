import JetsamValues

/// Kills and terminates a user asks for.
extension JetsamPolicy {
  mutating func kill(_ name: String, reason: ExitReason) throws(PolicyError) -> [PolicyAction] {
    let app = try lifecycle.known(name)
    guard let pid = app.process?.pid else { throw .illegalTransition(app: name, from: app.state, request: "kill") }
    // A process dies once: if a kill is already on its way, that one decides the record.
    let decision = app.process?.killInFlight ?? requestKill(name, .user(reason))
    return [.kill(app: name, pid: pid, reason: reason, decision: decision)]
  }

  mutating func terminate(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try lifecycle.known(name)
    guard let process = app.process else {
      throw .illegalTransition(app: name, from: app.state, request: "terminate")
    }
    lifecycle.apps[name]?.process?.sentTerminate = true
    // An app that speaks the protocol hears willTerminate first and gets its deadline to answer before the
    // SIGTERM; a suspended app cannot run a handler (iOS sends it none either).
    // So does one whose willTerminate a command hook answers.
    let answered: Bool
    if case .command = app.settings.hooks[.willTerminate] {
      answered = true
    } else {
      answered = process.channel.speaksProtocol
    }
    if answered && app.state != .suspended
      && process.channel.terminateAfterEvent == nil && process.terminateDeadline == nil
    {
      let actions = deliver(name, AppEvent(id: 0, kind: .willTerminate), at: at)
      if case .deliver(_, _, let delivered) = actions.first {
        lifecycle.apps[name]?.process?.channel.terminateAfterEvent = delivered.id
        return actions
      }
    }
    guard lifecycle.apps[name]?.process?.channel.terminateAfterEvent == nil else { return [] }
    // Asking again repeats the SIGTERM but does not extend the grace.
    return sendTerminate(name, at: at)
  }

  /// A `kill` action's SIGKILL went out: the record gets its instant, the victim's memory and the snapshot's.
  mutating func killSignalled(_ name: String, pid: Int32, at: Instant, memory: [String: Int64]) {
    guard let process = lifecycle.apps[name]?.process, process.pid == pid, process.killSignalledAt == nil else {
      return
    }
    lifecycle.apps[name]?.process?.killSignalledAt = at
    lifecycle.apps[name]?.process?.memoryAtKill = memory[name]
    if let snapshot = process.killInFlight?.snapshot {
      lifecycle.apps[name]?.process?.killInFlight?.snapshot = snapshot.map { entry in
        var entry = entry
        entry.memoryBytes = memory[entry.name] ?? 0
        return entry
      }
    }
  }

  /// Marks app `name` as being killed for `kill`, with the pressure that prevails as the kill is decided (and, for
  /// jetsam, its `snapshot`): its exit record tells that level and that available memory, not those after the
  /// victim's memory came back. Returns the decision, which the `kill` action carries.
  @discardableResult
  mutating func requestKill(_ name: String, _ kill: RequestedKill, snapshot: [SnapshotEntry]? = nil)
    -> KillInFlight
  {
    // Made before the access: the right side of an optional chain is evaluated inside it, and reads `self`.
    let inFlight = jetsam.decision(kill, snapshot: snapshot)
    lifecycle.apps[name]?.process?.killInFlight = inFlight
    return inFlight
  }

  /// SIGKILL for an app that ignored its SIGTERM past the grace.
  mutating func escalateTerminate(_ name: String) -> [PolicyAction] {
    lifecycle.apps[name]?.process?.terminateDeadline = nil
    // Already being killed for another reason: that kill will do.
    guard let process = lifecycle.apps[name]?.process, process.requestedKill == nil else { return [] }
    let decision = requestKill(name, .terminateEscalation)
    return [.kill(app: name, pid: process.pid, reason: .abnormal, decision: decision)]
  }
}
