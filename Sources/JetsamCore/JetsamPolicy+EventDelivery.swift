import JetsamValues
import JetsamWire

/// The app side: lifecycle events, acknowledgements and their watchdog, background tasks, memory warnings.
extension JetsamPolicy {
  /// Inserts the lifecycle events each state change tells the app about, right after the change.
  mutating func attachLifecycleEvents(_ actions: [PolicyAction], at: Instant) -> [PolicyAction] {
    var result: [PolicyAction] = []
    for action in actions {
      result.append(action)
      guard case .stateChanged(let name, let from, let to, _) = action, lifecycle.apps[name] != nil else { continue }
      lifecycle.apps[name]?.noteStint(from: from, to: to, at: at)
      for kind in AppEventKind.forTransition(from: from, to: to) {
        var event = AppEvent(id: 0, kind: kind)
        if kind == .didFinishLaunching {
          event.launchesToForeground = to != .background
          event.previousExit = exits.last(of: name).map(PreviousExit.init)
        }
        if kind == .willEnterForeground || kind == .didBecomeActive, let away = lifecycle.apps[name]?.process?.away {
          event.backgroundFor = at.duration(since: away.since)
          event.suspendedFor = away.suspended
          // didBecomeActive ends the return; a later one (after willResignActive only) was never away.
          if kind == .didBecomeActive { lifecycle.apps[name]?.process?.away = nil }
        }
        result += deliver(name, event, at: at)
      }
    }
    return result
  }

  /// Numbers an event for the app, starts its watchdog if the app is watched and handles no earlier event, and
  /// makes the actions: the delivery, then the app's hook for the event if it has one.
  mutating func deliver(_ name: String, _ event: AppEvent, at: Instant) -> [PolicyAction] {
    guard let pid = lifecycle.apps[name]?.process?.pid, let id = lifecycle.apps[name]?.process?.channel.takeEventID()
    else {
      return []
    }
    var event = event
    event.id = id
    let hook = lifecycle.apps[name]?.settings.hooks[event.kind]
    if event.kind.needsAcknowledgement {
      var allowance = config.lifecycle.deadline(for: event.kind)
      // A command (the event's hook, or one of the app's commands) answers for a program that cannot.
      var answeredByHook = lifecycle.apps[name]?.settings.commands.answers(event.kind) == true
      if case .command(_, let timeout) = hook {
        allowance = timeout ?? allowance
        answeredByHook = true
      }
      lifecycle.apps[name]?.process?.channel.pendingAcks[event.id] = PendingAck(
        kind: event.kind, allowance: allowance, answeredByHook: answeredByHook)
      lifecycle.apps[name]?.startWatchdog(at: at)
    }
    lifecycle.apps[name]?.process?.noteDelivery(event, at: at)
    var actions: [PolicyAction] = [.deliver(app: name, pid: pid, event: event)]
    switch hook {
    case .signal(let signal): actions.append(.signal(app: name, pid: pid, signal: signal))
    case .command(let command, _):
      let directory = lifecycle.apps[name]?.settings.launch?.workingDirectory
      actions.append(.runHook(app: name, pid: pid, event: event, command: command, workingDirectory: directory))
    case nil: break
    }
    var hookRuns = false
    if case .command = hook { hookRuns = true }
    return actions + commandRuns(for: event, of: name, hookRuns: hookRuns, at: at)
  }

  /// The handler of event `id` returned (or its command hook ended).
  mutating func acknowledged(_ name: String, pid: Int32, event id: Int, at: Instant) -> [PolicyAction] {
    guard let process = lifecycle.apps[name]?.process, process.pid == pid else { return [] }
    guard let pending = lifecycle.apps[name]?.process?.channel.pendingAcks.removeValue(forKey: id) else {
      if id >= process.channel.nextEventID || id < 1 {
        return [
          .appError(app: name, pid: pid, requestID: nil, code: .unknownEvent, message: "no event \(id) was sent")
        ]
      }
      return []  // already acknowledged, or dropped while suspended
    }
    lifecycle.apps[name]?.process?.noteAcknowledgement(pending, id: id, at: at)
    var actions: [PolicyAction] = [.acknowledged(app: name, pid: pid, event: pending.kind)]
    if lifecycle.apps[name]?.process?.channel.terminateAfterEvent == id { actions += sendTerminate(name, at: at) }
    // The app's next handler runs now.
    lifecycle.apps[name]?.startWatchdog(at: at)
    lifecycle.apps[name]?.suspendIfIdle(grace: config.backgroundGrace, at: at)
    return actions
  }

  mutating func appMessage(_ name: String, pid: Int32, message: AppMessage, at: Instant) -> [PolicyAction] {
    // A message from an earlier launch's channel says nothing about this one.
    guard let app = lifecycle.apps[name], let process = app.process, process.pid == pid else { return [] }
    lifecycle.apps[name]?.noteSpeaking(message, at: at)
    switch message {
    case .hello:
      return []
    case .acknowledge(let id):
      return acknowledged(name, pid: pid, event: id, at: at)
    case .stateSummary(let value, let requestID):
      guard value.utf8.count <= AppMessage.maxSummaryBytes else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .tooLarge,
            message: "a state summary is at most \(AppMessage.maxSummaryBytes) bytes (got \(value.utf8.count))")
        ]
      }
      // An empty value clears the summary.
      lifecycle.apps[name]?.summary = value.isEmpty ? nil : value
      return requestID.map { [.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
    case .stateDigest(let phase, let value, let validFor, let requestID):
      let reply = requestID.map { [PolicyAction.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
      switch phase {
      case .saved:
        lifecycle.apps[name]?.process?.restoration.savedDigest = value
        lifecycle.apps[name]?.process?.restoration.savedAt = at
        lifecycle.apps[name]?.process?.restoration.savedValidFor = validFor
        return reply
      case .restored:
        lifecycle.apps[name]?.process?.restoration.restoredDigest = value
        lifecycle.apps[name]?.process?.restoration.deadline = nil
        return reply + (lifecycle.apps[name]?.restorationJudged() ?? [])
      case .resumed:
        return reply + (lifecycle.apps[name]?.judgeResumption(value, at: at) ?? [])
      }
    case .signpost(let signpost, let phase, let requestID):
      guard !signpost.isEmpty, signpost.utf8.count <= AppMessage.maxSignpostNameBytes else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .badLine,
            message: "a signpost name is 1 to \(AppMessage.maxSignpostNameBytes) bytes (got \(signpost.utf8.count))")
        ]
      }
      let reply = requestID.map { [PolicyAction.reply(app: name, pid: pid, requestID: $0, .done)] } ?? []
      let measure = noteSignpost(name, signpost, phase, at: at)
      return [.signposted(app: name, pid: pid, launch: app.launch, name: signpost, phase: phase)] + measure + reply
    case .beginBackgroundTask(let requestID, let taskName, let kind):
      guard process.tasks.open.count < JetsamPolicy.maxOpenBackgroundTasks,
        let task = lifecycle.apps[name]?.process?.tasks.begin(taskName, kind: kind)
      else {
        return [
          .appError(
            app: name, pid: pid, requestID: requestID, code: .tooManyTasks,
            message: "\(JetsamPolicy.maxOpenBackgroundTasks) background tasks are open already; end some first")
        ]
      }
      if kind == .processing { rewatchCPU(name, at: at) }
      return [.reply(app: name, pid: pid, requestID: requestID, .taskBegun(task: task))]
    case .endBackgroundTask(let task, let requestID):
      guard lifecycle.apps[name]?.process?.tasks.open.removeValue(forKey: task) != nil else {
        return [
          .appError(app: name, pid: pid, requestID: requestID, code: .unknownTask, message: "no open task \(task)")
        ]
      }
      if lifecycle.apps[name]?.process?.tasks.processing.remove(task) != nil { rewatchCPU(name, at: at) }
      var actions: [PolicyAction] = []
      if let requestID { actions.append(.reply(app: name, pid: pid, requestID: requestID, .done)) }
      lifecycle.apps[name]?.suspendIfIdle(grace: config.backgroundGrace, at: at)
      return actions
    case .backgroundTimeRemaining(let requestID):
      return [
        .reply(
          app: name, pid: pid, requestID: requestID,
          .timeRemaining(app.backgroundTimeRemaining(config.lifecycle, at: at)))
      ]
    }
  }

  /// SIGTERM now, and SIGKILL if it is still alive after the grace.
  mutating func sendTerminate(_ name: String, at: Instant) -> [PolicyAction] {
    lifecycle.apps[name]?.process?.channel.terminateAfterEvent = nil
    guard let process = lifecycle.apps[name]?.process else { return [] }
    if process.terminateDeadline == nil {
      lifecycle.apps[name]?.process?.terminateDeadline = at.advanced(by: config.terminateGrace)
    }
    return [.terminate(app: name, pid: process.pid)]
  }

  /// memoryWarning to every foreground and background app when the level rises to warning or above.
  mutating func memoryWarnings(from before: PressureLevel, at: Instant) -> [PolicyAction] {
    guard level > before, level >= .warning else { return [] }
    var actions: [PolicyAction] = []
    // Foreground and background apps all have a process: the others are not visited.
    for name in lifecycle.apps.withProcess.sorted() {
      guard let app = lifecycle.apps[name], app.state.holdsForegroundSlot || app.state == .background,
        app.requestedKill == nil
      else { continue }
      actions += deliver(name, AppEvent(id: 0, kind: .memoryWarning, level: level), at: at)
    }
    return actions
  }

  /// The most background tasks one app may hold open at once: a leak (or a hostile app) stays bounded, far above
  /// what a real app uses (iOS apps rarely hold more than a few).
  public static let maxOpenBackgroundTasks = 64

  /// The app side's work at a tick: missed acknowledgements and expiring background tasks.
  mutating func appChannelTick(_ name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for id in lifecycle.apps[name]?.process?.channel.pendingAcks.keys.sorted() ?? [] {
      guard let pending = lifecycle.apps[name]?.process?.channel.pendingAcks[id], let deadline = pending.deadline,
        deadline <= at
      else { continue }
      lifecycle.apps[name]?.process?.channel.pendingAcks[id] = nil
      if pending.kind == .willTerminate {
        // An app that does not answer willTerminate in time is terminated anyway, not punished.
        actions += sendTerminate(name, at: at)
      } else if config.watchdogUnderDebugger == .hold, let pid = lifecycle.apps[name]?.process?.pid {
        // Under a debugger the watchdog holds (iOS): whether one is attached is asked first.
        lifecycle.apps[name]?.process?.channel.pendingAcks[id] = pending
        lifecycle.apps[name]?.process?.channel.pendingAcks[id]?.askedForTracer = true
        actions.append(.checkTracer(app: name, pid: pid))
      } else {
        actions += watchdogKill(name, pending, at: at)
      }
    }
    lifecycle.apps[name]?.startWatchdog(at: at)
    if let expiry = lifecycle.apps[name]?.taskExpiry(config.lifecycle, charging: deviceCharging) {
      if lifecycle.apps[name]?.process?.backgroundStint?.expiryWarned == false && expiry.warning <= at {
        lifecycle.apps[name]?.process?.backgroundStint?.expiryWarned = true
        for (task, taskName) in (lifecycle.apps[name]?.boundTasks(charging: deviceCharging) ?? []) {
          let event = AppEvent(id: 0, kind: .backgroundTaskWillExpire, task: task, taskName: taskName)
          actions += deliver(name, event, at: at)
        }
      }
      if expiry.kill <= at {
        let open = (lifecycle.apps[name]?.boundTasks(charging: deviceCharging) ?? []).map(\.value)
        actions += killForApp(name, .backgroundTaskTimeout(open), reason: .backgroundTaskAssertionTimeout)
      }
    }
    return actions
  }

  /// The watchdog's kill for `pending`, with its hang diagnostic first.
  private mutating func watchdogKill(_ name: String, _ pending: PendingAck, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    let seconds = at.seconds(since: pending.since ?? at)
    // The hang it ends is counted.
    lifecycle.apps[name]?.process?.metrics.hangTimes.count(seconds: seconds)
    // Where it hung, taken before the kill (MetricKit's hang diagnostic).
    if lifecycle.apps[name]?.requestedKill == nil, let pid = lifecycle.apps[name]?.process?.pid {
      actions.append(.diagnose(app: name, pid: pid, .hang(event: pending.kind, seconds: seconds)))
    }
    return actions + killForApp(name, .watchdog(pending.kind, seconds: seconds), reason: .appWatchdog)
  }

  /// The answer to `checkTracer`: with a tracer attached, the watchdog waiting for it holds (and is looked at again
  /// shortly); without one, a watchdog that was held runs its whole allowance again from now, and one that was not
  /// kills as it would have.
  mutating func tracerChecked(_ name: String, pid: Int32, tracer: Int32?, at: Instant) -> [PolicyAction] {
    guard lifecycle.apps[name]?.process?.pid == pid else { return [] }
    var actions: [PolicyAction] = []
    for id in lifecycle.apps[name]?.process?.channel.pendingAcks.keys.sorted() ?? [] {
      guard var pending = lifecycle.apps[name]?.process?.channel.pendingAcks[id], pending.askedForTracer else {
        continue
      }
      pending.askedForTracer = false
      let heldBefore = pending.heldBy?.tracer
      if let tracer {
        pending.heldBy = (tracer, at.advanced(by: config.debuggerLookInterval))
        lifecycle.apps[name]?.process?.channel.pendingAcks[id] = pending
        if heldBefore != tracer {
          actions.append(.watchdogHeld(app: name, pid: pid, event: pending.kind, tracer: tracer))
        }
      } else if heldBefore != nil {
        pending.heldBy = nil
        pending.since = at
        lifecycle.apps[name]?.process?.channel.pendingAcks[id] = pending
        actions.append(.watchdogHeld(app: name, pid: pid, event: pending.kind, tracer: nil))
      } else {
        lifecycle.apps[name]?.process?.channel.pendingAcks[id] = nil
        actions += watchdogKill(name, pending, at: at)
      }
    }
    return actions
  }

  /// Kills an app for what it did (or failed to do); the first kill requested decides its record.
  mutating func killForApp(_ name: String, _ kill: RequestedKill, reason: ExitReason) -> [PolicyAction] {
    guard lifecycle.apps[name]?.requestedKill == nil, let pid = lifecycle.apps[name]?.process?.pid else { return [] }
    let decision = requestKill(name, kill)
    // Nothing more is owed to an app on its way out.
    lifecycle.apps[name]?.process?.channel.waiveAll()
    lifecycle.apps[name]?.process?.tasks.endAll()
    return [.kill(app: name, pid: pid, reason: reason, decision: decision)]
  }
}
