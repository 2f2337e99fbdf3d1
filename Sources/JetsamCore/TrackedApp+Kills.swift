import JetsamValues

/// An app's kills as its own: the first kill decided is the one its record tells, with the pressure as it was
/// decided; the SIGKILL's instant and the memory then are kept for that record.
extension TrackedApp {
  /// Kills the app for what it did (or failed to do), unless a kill is already on its way: that one decides the
  /// record. Nothing more is owed to an app on its way out: its events and tasks are waived.
  mutating func killForItself(_ kill: RequestedKill, reason: ExitReason, pressure: DevicePressure) -> [PolicyAction] {
    guard requestedKill == nil, let pid = process?.pid else { return [] }
    let decision = pressure.decision(kill)
    process?.killInFlight = decision
    process?.channel.waiveAll()
    process?.tasks.endAll()
    return [.kill(app: name, pid: pid, reason: reason, decision: decision)]
  }

  /// A user's kill for `reason`. A process dies once: if a kill is already on its way, that one decides the record.
  mutating func killForUser(reason: ExitReason, pressure: DevicePressure) throws(PolicyError) -> [PolicyAction] {
    guard let pid = process?.pid else { throw .illegalTransition(app: name, from: state, request: "kill") }
    let decision = process?.killInFlight ?? pressure.decision(.user(reason))
    process?.killInFlight = decision
    return [.kill(app: name, pid: pid, reason: reason, decision: decision)]
  }

  /// SIGKILL for an app that ignored its SIGTERM past the grace, unless it is already being killed for another
  /// reason: that kill will do.
  mutating func escalateTerminate(pressure: DevicePressure) -> [PolicyAction] {
    process?.terminateDeadline = nil
    guard let pid = process?.pid, requestedKill == nil else { return [] }
    let decision = pressure.decision(.terminateEscalation)
    process?.killInFlight = decision
    return [.kill(app: name, pid: pid, reason: .abnormal, decision: decision)]
  }

  /// A `kill` action's SIGKILL went out to `pid`: the record gets its instant, the victim's memory and the
  /// snapshot's (`memory`: bytes by app).
  mutating func killSignalled(pid: Int32, at: Instant, memory: [String: Int64]) {
    guard let process, process.pid == pid, process.killSignalledAt == nil else { return }
    let own = memory[name]
    self.process?.killSignalledAt = at
    self.process?.memoryAtKill = own
    guard let snapshot = process.killInFlight?.snapshot else { return }
    // Made before the access: the right side of an optional chain is evaluated inside it.
    let measured = snapshot.map { entry in
      var entry = entry
      entry.memoryBytes = memory[entry.name] ?? 0
      return entry
    }
    self.process?.killInFlight?.snapshot = measured
  }
}
