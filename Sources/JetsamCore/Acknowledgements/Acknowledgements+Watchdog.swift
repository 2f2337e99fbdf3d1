import JetsamValues

/// The watchdog: acknowledgements not given in time, a debugger that holds it, and background tasks past their
/// budget.
extension Acknowledgements {
  /// The app's channel at a tick: missed acknowledgements and expiring background tasks (`charging`: whether the
  /// device is idle and charging, when processing tasks run unbounded; kills record `pressure`).
  func tick(
    of app: inout TrackedApp, charging: Bool, pressure: DevicePressure, at: Instant
  ) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    // One expiry at a time, looked up again each time: a watchdog kill waives those after it.
    for id in app.process?.channel.pendingAcks.keys.sorted() ?? [] {
      guard let pending = app.process?.channel.pendingAcks[id], let deadline = pending.deadline, deadline <= at
      else { continue }
      app.process?.channel.pendingAcks[id] = nil
      if pending.kind == .willTerminate {
        // An app that does not answer willTerminate in time is terminated anyway, not punished.
        actions += sendTerminate(to: &app, at: at)
      } else if rules.underDebugger == .hold, let pid = app.process?.pid {
        // Under a debugger the watchdog holds (iOS): whether one is attached is asked first.
        app.process?.channel.pendingAcks[id] = pending
        app.process?.channel.pendingAcks[id]?.askedForTracer = true
        actions.append(.checkTracer(app: app.name, pid: pid))
      } else {
        actions += watchdogKill(&app, pending, pressure: pressure, at: at)
      }
    }
    app.startWatchdog(at: at)
    if let expiry = app.taskExpiry(rules.timings, charging: charging) {
      if app.process?.backgroundStint?.expiryWarned == false && expiry.warning <= at {
        app.process?.backgroundStint?.expiryWarned = true
        for (task, taskName) in app.boundTasks(charging: charging) {
          let event = AppEvent(id: 0, kind: .backgroundTaskWillExpire, task: task, taskName: taskName)
          actions += deliver(event, to: &app, at: at)
        }
      }
      if expiry.kill <= at {
        let open = app.boundTasks(charging: charging).map(\.value)
        actions += app.killForItself(
          .backgroundTaskTimeout(open), reason: .backgroundTaskAssertionTimeout, pressure: pressure)
      }
    }
    return actions
  }

  /// The watchdog's kill for `pending`, with its hang diagnostic first.
  private func watchdogKill(
    _ app: inout TrackedApp, _ pending: PendingAck, pressure: DevicePressure, at: Instant
  ) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    let seconds = at.seconds(since: pending.since ?? at)
    // The hang it ends is counted.
    app.process?.metrics.hangTimes.count(seconds: seconds)
    // Where it hung, taken before the kill (MetricKit's hang diagnostic).
    if app.requestedKill == nil, let pid = app.process?.pid {
      actions.append(.diagnose(app: app.name, pid: pid, .hang(event: pending.kind, seconds: seconds)))
    }
    return actions
      + app.killForItself(.watchdog(pending.kind, seconds: seconds), reason: .appWatchdog, pressure: pressure)
  }

  /// The answer to `checkTracer` for process `pid`: with a tracer attached, the watchdog waiting for it holds (and
  /// is looked at again shortly); without one, a watchdog that was held runs its whole allowance again from now,
  /// and one that was not kills as it would have.
  func tracerChecked(
    pid: Int32, tracer: Int32?, of app: inout TrackedApp, pressure: DevicePressure, at: Instant
  ) -> [PolicyAction] {
    guard app.process?.pid == pid else { return [] }
    var actions: [PolicyAction] = []
    for id in app.process?.channel.pendingAcks.keys.sorted() ?? [] {
      guard var pending = app.process?.channel.pendingAcks[id], pending.askedForTracer else { continue }
      pending.askedForTracer = false
      let heldBefore = pending.heldBy?.tracer
      if let tracer {
        pending.heldBy = (tracer, at.advanced(by: rules.debuggerLookInterval))
        app.process?.channel.pendingAcks[id] = pending
        if heldBefore != tracer {
          actions.append(.watchdogHeld(app: app.name, pid: pid, event: pending.kind, tracer: tracer))
        }
      } else if heldBefore != nil {
        pending.heldBy = nil
        pending.since = at
        app.process?.channel.pendingAcks[id] = pending
        actions.append(.watchdogHeld(app: app.name, pid: pid, event: pending.kind, tracer: nil))
      } else {
        app.process?.channel.pendingAcks[id] = nil
        actions += watchdogKill(&app, pending, pressure: pressure, at: at)
      }
    }
    return actions
  }
}
