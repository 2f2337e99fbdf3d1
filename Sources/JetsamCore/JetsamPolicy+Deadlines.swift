/// Timed work: terminate escalation, background grace, the jetsam kill timeout.
extension JetsamPolicy {
  /// The earliest instant at which the policy needs a `.tick`, or nil when nothing is pending.
  public var nextDeadline: Instant? {
    let perApp = trackedApps.values.flatMap { [$0.graceDeadline, $0.terminateDeadline].compactMap { $0 } }
    return (perApp + [jetsamKill?.deadline].compactMap { $0 }).min()
  }

  mutating func tick(at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    // Name order keeps the actions deterministic when several deadlines fall due together.
    for name in trackedApps.keys.sorted() {
      if let deadline = trackedApps[name]!.terminateDeadline, deadline <= at {
        actions += escalateTerminate(name)
      }
      if let deadline = trackedApps[name]!.graceDeadline, deadline <= at {
        // The deadline only exists during the background stint that set it (leaving clears it).
        trackedApps[name]!.graceDeadline = nil
        // Stopping a process that is being killed would gain nothing.
        if trackedApps[name]!.requestedKill == nil { actions += suspendNow(name, at: at) }
      }
    }
    if let kill = jetsamKill, kill.deadline <= at {
      // The victim is stuck dying; it keeps its requested kill, so it is never chosen again and its SIGKILL
      // death is still recorded as memory pressure.
      jetsamKill = nil
    }
    actions += runJetsam(at: at)
    return actions
  }
}
