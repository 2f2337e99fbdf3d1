import JetsamValues

/// Timed work: terminate escalation, background grace, the jetsam kill timeout.
extension JetsamPolicy {
  /// The earliest instant at which the policy needs a `.tick`, or nil when nothing is pending.
  ///
  /// Asked after every batch, so it reads each app in place rather than copying it (with 1,000 apps, copying
  /// every tracked app and collecting arrays cost more than the batch itself).
  public var nextDeadline: Instant? {
    var earliest = jetsam.nextDeadline
    func consider(_ deadline: Instant?) {
      if let deadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }
    consider(cpu.nextDeadline)
    consider(diskWrites.nextRoundAt)
    consider(suspendedMemory.nextRoundAt)
    // Every deadline belongs to a process: apps without one need not be visited.
    lifecycle.apps.forEachWithProcess { app in
      consider(app.process?.graceDeadline)
      consider(app.process?.terminateDeadline)
      consider(app.process?.suspendDeadline)
      consider(app.channelDeadline(config.lifecycle, charging: deviceCharging))
      consider(app.process?.restoration.deadline)
      // A suspended program's poll of ready waits for its return (commandsTick).
      if app.state != .suspended { consider(app.process?.commands.nextReadyRun) }
    }
    return earliest
  }

  mutating func tick(at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    let pressure = jetsam.pressure
    let charging = deviceCharging
    // Name order keeps the actions deterministic when several deadlines fall due together. Only apps with a process
    // have deadlines; a kill asked for here leaves the process in place, so the list stays right through the pass.
    for name in lifecycle.apps.withProcess.sorted() {
      if let deadline = lifecycle.apps[name]?.process?.terminateDeadline, deadline <= at {
        actions += lifecycle.apps[name]?.escalateTerminate(pressure: pressure) ?? []
      }
      actions += acknowledging(name) { $0.tick(of: &$1, charging: charging, pressure: pressure, at: at) }
      actions += acknowledging(name) { $0.commandsTick(of: &$1, at: at) }
      if let deadline = lifecycle.apps[name]?.process?.suspendDeadline, deadline <= at {
        actions += lifecycle.apps[name]?.suspendTimedOut() ?? []
      }
      if let deadline = lifecycle.apps[name]?.process?.restoration.deadline, deadline <= at {
        lifecycle.apps[name]?.process?.restoration.deadline = nil
        lifecycle.apps[name]?.process?.restoration.lost = true
        actions += lifecycle.apps[name]?.restorationJudged() ?? []
      }
      if let process = lifecycle.apps[name]?.process, let deadline = process.graceDeadline, deadline <= at {
        // The deadline only exists during the background stint that set it (leaving clears it).
        lifecycle.apps[name]?.process?.graceDeadline = nil
        if process.requestedKill != nil {
          // Stopping a process that is being killed would gain nothing.
        } else if process.isBusy {
          // Not while a background task runs or a handler has not returned: once idle, the grace starts over.
          lifecycle.apps[name]?.process?.backgroundStint?.suspendWhenIdle = true
        } else {
          actions += suspendNow(name, at: at)
        }
      }
    }
    jetsam.tick(at: at)
    actions += Self.sampling(cpu.tick(at: at), PolicyAction.sampleCPU)
    actions += Self.sampling(diskWrites.tick(at: at, apps: lifecycle.apps), PolicyAction.sampleDiskWrites)
    actions += Self.sampling(
      suspendedMemory.tick(at: at, interval: config.suspendedMemoryInterval), PolicyAction.sampleSuspendedMemory)
    actions += runJetsam(at: at)
    return actions
  }

  /// The action that reads `refs`, if any are due.
  private static func sampling(_ refs: [AppProcessRef], _ action: ([AppProcessRef]) -> PolicyAction) -> [PolicyAction] {
    refs.isEmpty ? [] : [action(refs)]
  }
}
