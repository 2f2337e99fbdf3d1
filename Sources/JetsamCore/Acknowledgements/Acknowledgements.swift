import JetsamValues

/// Acknowledgements and their watchdog, a machine of its own: the lifecycle events an app is told, their numbers,
/// which of them it owes an answer to and by when, the hook or command that answers for a program that cannot, and
/// the SIGTERM that waits for `willTerminate`'s answer.
///
/// Its state is per app and lives in the app's entry (``RunningProcess/channel``, ``AppChannelBook``): the
/// composition (``JetsamPolicy``) hands it that one entry in place for each event, so a handler reaches nothing
/// but the app it is about. Kills it decides record the ``DevicePressure`` it is handed; the monitors and the
/// signpost meter it never touches: what they need of it are the facts in its actions (`signposted`) and the app's
/// tasks.
struct Acknowledgements: Sendable {
  /// The tunables in force.
  var rules: AcknowledgementRules

  /// The most background tasks one app may hold open at once: a leak (or a hostile app) stays bounded, far above
  /// what a real app uses (iOS apps rarely hold more than a few).
  static let maxOpenBackgroundTasks = 64

  /// The lifecycle events the app's move from `from` to `to` tells it, delivered (`exits`: the exit book, read for
  /// the exit a launch follows).
  func lifecycleEvents(
    from: LifecycleState, to: LifecycleState, of app: inout TrackedApp, exits: borrowing ExitBook, at: Instant
  ) -> [PolicyAction] {
    app.noteStint(from: from, to: to, at: at)
    var actions: [PolicyAction] = []
    for kind in AppEventKind.forTransition(from: from, to: to) {
      var event = AppEvent(id: 0, kind: kind)
      if kind == .didFinishLaunching {
        event.launchesToForeground = to != .background
        event.previousExit = exits.last(of: app.name).map(PreviousExit.init)
      }
      if kind == .willEnterForeground || kind == .didBecomeActive, let away = app.process?.away {
        event.backgroundFor = at.duration(since: away.since)
        event.suspendedFor = away.suspended
        // didBecomeActive ends the return; a later one (after willResignActive only) was never away.
        if kind == .didBecomeActive { app.process?.away = nil }
      }
      actions += deliver(event, to: &app, at: at)
    }
    return actions
  }

  /// Numbers an event for the app, starts its watchdog if the app is watched and handles no earlier event, and
  /// makes the actions: the delivery, then the app's hook for the event if it has one, then the command runs the
  /// event starts.
  func deliver(_ event: AppEvent, to app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    guard let pid = app.process?.pid, let id = app.process?.channel.takeEventID() else { return [] }
    var event = event
    event.id = id
    let hook = app.settings.hooks[event.kind]
    if event.kind.needsAcknowledgement {
      var allowance = rules.timings.deadline(for: event.kind)
      // A command (the event's hook, or one of the app's commands) answers for a program that cannot.
      var answeredByHook = app.settings.commands.answers(event.kind)
      if case .command(_, let timeout) = hook {
        allowance = timeout ?? allowance
        answeredByHook = true
      }
      app.process?.channel.pendingAcks[event.id] = PendingAck(
        kind: event.kind, allowance: allowance, answeredByHook: answeredByHook)
      app.startWatchdog(at: at)
    }
    app.process?.noteDelivery(event, at: at)
    var actions: [PolicyAction] = [.deliver(app: app.name, pid: pid, event: event)]
    switch hook {
    case .signal(let signal): actions.append(.signal(app: app.name, pid: pid, signal: signal))
    case .command(let command, _):
      let directory = app.settings.launch?.workingDirectory
      actions.append(.runHook(app: app.name, pid: pid, event: event, command: command, workingDirectory: directory))
    case nil: break
    }
    var hookRuns = false
    if case .command = hook { hookRuns = true }
    return actions + app.commandRuns(for: event, hookRuns: hookRuns)
  }

  /// The handler of event `id` returned in process `pid` (or its command hook ended): the app's next handler runs
  /// now, a SIGTERM that waited for this answer goes out, and an idle app's suspension may follow.
  func acknowledged(_ id: Int, pid: Int32, of app: inout TrackedApp, at: Instant) -> [PolicyAction] {
    guard let process = app.process, process.pid == pid else { return [] }
    guard let pending = app.process?.channel.pendingAcks.removeValue(forKey: id) else {
      if id >= process.channel.nextEventID || id < 1 {
        return [
          .appError(app: app.name, pid: pid, requestID: nil, code: .unknownEvent, message: "no event \(id) was sent")
        ]
      }
      return []  // already acknowledged, or dropped while suspended
    }
    app.process?.noteAcknowledgement(pending, id: id, at: at)
    var actions: [PolicyAction] = [.acknowledged(app: app.name, pid: pid, event: pending.kind)]
    if app.process?.channel.terminateAfterEvent == id { actions += sendTerminate(to: &app, at: at) }
    app.startWatchdog(at: at)
    app.suspendIfIdle(grace: rules.backgroundGrace, at: at)
    return actions
  }
}
