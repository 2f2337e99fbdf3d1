import JetsamValues

/// Timed work: terminate escalation, background grace, the jetsam kill timeout.
extension JetsamPolicy {
  /// The earliest instant at which the policy needs a `.tick`, or nil when nothing is pending.
  ///
  /// Asked after every turn of the shell's loop, so it reads indexes, never every app: the apps' deadlines are filed
  /// in the table at the end of each event (``AppTable/fileDeadlines(_:)``).
  public var nextDeadline: Instant? { earliest(lifecycle.apps.deadlines.first?.at) }

  /// ``nextDeadline`` worked out the slow way, every app visited: what the tests hold the deadline index to.
  public var nextDeadlineByScan: Instant? {
    let context = DeadlineContext(timings: config.lifecycle, charging: deviceCharging)
    return earliest(lifecycle.apps.values.compactMap { $0.earliestDeadline(context) }.min())
  }

  /// The earliest of the machines' deadlines and `appsDeadline`.
  private func earliest(_ appsDeadline: Instant?) -> Instant? {
    [jetsam.nextDeadline, cpu.nextDeadline, diskWrites.nextRoundAt, suspendedMemory.nextRoundAt, appsDeadline]
      .compactMap { $0 }.min()
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
