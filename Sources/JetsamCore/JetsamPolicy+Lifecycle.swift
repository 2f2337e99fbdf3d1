import JetsamValues

/// App lifecycle: launching, the foreground slots, background, suspension.
extension JetsamPolicy {
  mutating func configure(_ name: String, _ settings: AppSettings, launchCount: Int) -> [PolicyAction] {
    // Declared before anything happened to it: its times start at the clock's origin.
    var app = trackedApps[name] ?? TrackedApp(name: name, launch: 0, at: Instant(nanoseconds: 0))
    var actions: [PolicyAction] = []
    if app.state.isRunning {
      // A reload while it runs: the process keeps how it was started and treated, but for its caps, which the kernel
      // can change under it; the rest applies from its next launch.
      if let pid = app.process?.pid, let limits = settings.launch?.limits, limits != app.settings.launch?.limits {
        actions.append(.setLimits(app: name, pid: pid, limits))
        app.settings.launch?.limits = limits
      }
      app.nextSettings = settings
    } else {
      app.settings = settings
      app.nextSettings = nil
    }
    // After a daemon restart the counter must not go back, or two records would share a launch number.
    app.launch = max(app.launch, launchCount, exits.last(of: name)?.launch ?? 0)
    trackedApps[name] = app
    return actions
  }

  mutating func launch(_ name: String, foreground: Bool, at: Instant) throws(PolicyError) -> [PolicyAction] {
    var app = try known(name)
    guard !app.state.isRunning else { throw .illegalTransition(app: name, from: app.state, request: "launch") }
    if let next = app.nextSettings {
      app.settings = next
      app.nextSettings = nil
    }
    guard let spec = app.settings.launch else { throw .notLaunchable(app: name) }
    trackedApps[name] = app
    let changed = move(name, to: .launching, at: at)
    trackedApps[name]?.launch += 1
    let previous = exits.last(of: name)
    trackedApps[name]?.pendingLaunch = PendingLaunch(toForeground: foreground, previousDigest: previous?.stateDigest)
    return [
      changed,
      .spawn(
        app: name, launch: trackedApps[name]!.launch, previousExit: previous.map(PreviousExit.init), spec: spec),
    ]
  }

  mutating func spawned(_ name: String, pid: Int32, at: Instant) -> [PolicyAction] {
    guard let app = trackedApps[name], app.state == .launching, let pending = app.pendingLaunch else { return [] }
    var process = RunningProcess(pid: pid, spawnedAt: at, previousDigest: pending.previousDigest)
    // After a kill or a crash (not a quit: a fresh start is right then), what it left must come back.
    if pending.previousDigest != nil, let previous = exits.last(of: name), previous.reason != .normalAppExit {
      process.restoration.deadline = at.advanced(by: config.lifecycle.launch)
    }
    // An app whose acknowledgements are always expected is watched from its first event.
    process.channel.speaksProtocol = app.settings.acknowledgements == .always
    process.metrics.afterExit = exits.last(of: name)?.reason
    process.timers.awaitsFirstDraw = pending.toForeground
    trackedApps[name]?.pendingLaunch = nil
    trackedApps[name]?.process = process
    guard pending.toForeground else { return [move(name, to: .background, at: at)] }
    return makeRoomInForeground(for: name, at: at) + [move(name, to: .foregroundActive, at: at)]
  }

  mutating func spawnFailed(_ name: String, at: Instant) -> [PolicyAction] {
    guard trackedApps[name]?.state == .launching else { return [] }
    // Nothing ran, so there is no exit to record; the launch number stays used.
    let changed = move(name, to: .terminated, at: at)
    trackedApps[name]?.pendingLaunch = nil
    return [changed]
  }

  mutating func activate(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    switch app.state {
    case .notRunning, .terminated:
      return try launch(name, foreground: true, at: at)
    case .launching:
      trackedApps[name]?.pendingLaunch?.toForeground = true
      return []
    case .suspended:
      guard let pid = app.process?.pid else { return [] }
      var actions: [PolicyAction] = [.resume(app: name, pid: pid), move(name, to: .background, at: at)]
      actions += makeRoomInForeground(for: name, at: at)
      actions.append(move(name, to: .foregroundInactive, at: at))
      actions.append(move(name, to: .foregroundActive, at: at))
      return actions
    case .background:
      var actions = makeRoomInForeground(for: name, at: at)
      actions.append(move(name, to: .foregroundInactive, at: at))
      actions.append(move(name, to: .foregroundActive, at: at))
      return actions
    case .foregroundInactive:
      return [move(name, to: .foregroundActive, at: at)]
    case .foregroundActive:
      return []
    }
  }

  mutating func moveToBackground(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.state.holdsForegroundSlot else {
      throw .illegalTransition(app: name, from: app.state, request: "background")
    }
    return leaveForeground(name, at: at)
  }

  mutating func suspend(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.state.holdsForegroundSlot || app.state == .background else {
      throw .illegalTransition(app: name, from: app.state, request: "suspend")
    }
    return suspendNow(name, at: at)
  }

  mutating func resume(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.state == .suspended, let pid = app.process?.pid else {
      throw .illegalTransition(app: name, from: app.state, request: "resume")
    }
    // The reverse of suspend (state first, then the stop): the process runs again, then the state says so.
    return [.resume(app: name, pid: pid), move(name, to: .background, at: at)]
  }

  mutating func suspendCompleted(_ name: String, at: Instant) -> [PolicyAction] {
    guard trackedApps[name]?.state == .suspended else { return [] }
    // Suspended time counts from the moment the last process stopped, not from the request.
    trackedApps[name]?.bandEnteredAt = at
    trackedApps[name]?.process?.suspendDeadline = nil
    trackedApps[name]?.process?.suspendIncomplete = false
    let defunct = trackedApps[name]?.defunctSocketsAtSuspension() ?? []
    // Its locks once more, now that nothing of it runs.
    guard trackedApps[name]?.process?.lockCheck == .stopped, let pid = trackedApps[name]?.process?.pid else {
      return defunct
    }
    return defunct + [.inspectLocks(app: name, pid: pid, stage: .stopped)]
  }

  /// Another process continued a suspended app: a suspended app does not run, so it is stopped again (with the
  /// suspend timeout as for any suspension), and counted. Its suspended time starts over once it is seen stopped:
  /// it ran meanwhile.
  mutating func continuedWhileSuspended(_ name: String, pid: Int32, at: Instant) -> [PolicyAction] {
    guard let app = trackedApps[name], app.state == .suspended, app.process?.pid == pid else { return [] }
    trackedApps[name]?.process?.continuedByOthers += 1
    return (trackedApps[name]?.stop(at: at, timeout: config.suspendTimeout) ?? [])
  }

  /// Suspends a foreground or background app, through the background; the suspend action follows the states.
  /// Unless `checkingLocks` is false (or the app's rule ignores locks), its file locks are looked at first.
  mutating func suspendNow(_ name: String, at: Instant, checkingLocks: Bool = true) -> [PolicyAction] {
    if checkingLocks, let check = checkLocksBeforeSuspending(name, at: at) { return check }
    var actions = trackedApps[name]?.state.holdsForegroundSlot == true ? leaveForeground(name, at: at) : []
    actions.append(move(name, to: .suspended, at: at))
    return actions + (trackedApps[name]?.stop(at: at, timeout: config.suspendTimeout) ?? [])
      + readingsAtSuspension(name)
  }

  /// Moves a foreground app to the background, through foregroundInactive.
  mutating func leaveForeground(_ name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    if trackedApps[name]?.state == .foregroundActive { actions.append(move(name, to: .foregroundInactive, at: at)) }
    actions.append(move(name, to: .background, at: at))
    return actions
  }

  /// Sends the earliest arrivals in the foreground to the background until `name` fits in the slots.
  mutating func makeRoomInForeground(for name: String, at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    while true {
      // Only an app with a process holds a slot (it gets one when spawned), so the others need not be visited.
      var others = 0
      var earliest: (name: String, arrival: Int)?
      trackedApps.forEachWithProcess { app in
        guard app.name != name && app.state.holdsForegroundSlot else { return }
        others += 1
        if earliest.map({ app.foregroundArrival < $0.arrival }) ?? true {
          earliest = (app.name, app.foregroundArrival)
        }
      }
      guard others >= config.foregroundSlots, let earliest else { return actions }
      actions += leaveForeground(earliest.name, at: at)
    }
  }

  /// Moves an app to `next`, keeping its times, band and grace deadline right, and says so.
  ///
  /// Every state change of the policy goes through here, so no illegal move can slip out.
  mutating func move(_ name: String, to next: LifecycleState, at: Instant) -> PolicyAction {
    let from = trackedApps[name]!.state
    precondition(from.canMove(to: next), "jetsam policy bug: \(name) cannot move from \(from) to \(next)")
    let arrival: Int? = next.holdsForegroundSlot && !from.holdsForegroundSlot ? foregroundArrivals : nil
    if arrival != nil { foregroundArrivals += 1 }
    let grace = next == .background ? config.backgroundGrace.map { at.advanced(by: $0) } : nil
    // Changed in place: a copy of the app out of the dictionary and back costs a retain and a release of each
    // of its fields, which a batch suspend of 1,000 apps pays 1,000 times.
    let band = Self.update(&trackedApps[name]!) { app in
      let oldBand = app.band
      if let arrival { app.foregroundArrival = arrival }
      // The stay away from the foreground: it starts when the app leaves it (or launches into the background)
      // and adds up the time suspended, for the events of its return.
      if from == .suspended {
        let suspended = at.duration(since: app.stateEnteredAt)
        app.process?.away?.suspended += suspended
      }
      if next == .background && (from == .foregroundInactive || from == .launching) {
        app.process?.away = AwayStint(since: at)
      }
      app.countStint(leavingAt: at)
      app.state = next
      app.stateEnteredAt = at
      // Only a real band change restarts the band clock: an audio app keeps its place in line across fg/bg.
      if app.band != oldBand { app.bandEnteredAt = at }
      // Each background stint has its own grace; leaving the background cancels it.
      app.process?.graceDeadline = grace
      if next != .suspended {
        app.process?.suspendDeadline = nil
        app.process?.suspendIncomplete = false
        // A lock check of a suspension the app has left (or not reached) has nothing left to decide.
        app.process?.lockCheck = nil
      }
      return app.band
    }
    rewatchCPU(name, at: at)
    rewatchDiskWrites(name, at: at)
    rewatchSuspendedMemory(name, from: from, to: next, at: at)
    return .stateChanged(app: name, from: from, to: next, band: band)
  }

  private static func update<Result>(_ app: inout TrackedApp, _ body: (inout TrackedApp) -> Result) -> Result {
    body(&app)
  }

  /// An app that survived a daemon restart joins the policy in the state it was left in. A launching app
  /// counts as background (its launch outcome was lost with the old daemon); a background app's grace starts
  /// over. Everything its saved status holds comes back, but whether a suspension completed: the processes the
  /// new daemon saw (`observedStopped`) decide that.
  mutating func adopt(_ adopted: AppStatus, at: Instant) -> [PolicyAction] {
    guard let pid = adopted.pid, let spawnedAt = adopted.spawnedAt else { return [] }
    var state: LifecycleState
    switch adopted.state {
    case .notRunning, .terminated: return []
    case .launching: state = .background
    default: state = adopted.state
    }
    var bandEnteredAt = adopted.bandEnteredAt
    if adopted.observedStopped == true && state != .suspended {
      // Stopped after the last save: suspended since now, as far as anyone can tell.
      state = .suspended
      bandEnteredAt = at
    } else if adopted.observedStopped == false && state == .suspended {
      state = .background
    }
    // The settings are those the configure before the adoption gave (the saved ones, launch spec and ad hoc or not
    // included, or the config's); the band lift is the saved one.
    var settings = trackedApps[adopted.name]?.settings ?? AppSettings(launch: nil)
    settings.bandFloor = adopted.bandFloor
    var app = TrackedApp(name: adopted.name, settings: settings, launch: adopted.launch, at: adopted.stateEnteredAt)
    app.summary = adopted.summary
    app.state = state
    app.bandEnteredAt = bandEnteredAt
    var process = RunningProcess(pid: pid, spawnedAt: spawnedAt, previousDigest: adopted.previousDigest)
    process.restoration.savedDigest = adopted.savedDigest
    process.restoration.restoredDigest = adopted.restoredDigest
    process.restoration.savedAt = adopted.savedAt
    if let savedAt = adopted.savedAt, let validUntil = adopted.savedValidUntil {
      process.restoration.savedValidFor = validUntil.duration(since: savedAt)
    }
    process.restoration.resumption = adopted.resumption
    // A restore still owed keeps its deadline (the successor's ticks judge it `lost` in time).
    process.restoration.deadline = adopted.restorationDeadline
    process.restoration.lost = adopted.restorationLost
    process.continuedByOthers = adopted.continuedByOthers
    process.metrics = adopted.launchMetrics ?? LaunchMetrics()
    // Time suspended in this stay away from the foreground counts from the current suspension only (earlier
    // suspensions of the same stay, rare, are not in the state file).
    process.away = adopted.awaySince.map { AwayStint(since: $0) }
    if state.holdsForegroundSlot {
      app.foregroundArrival = foregroundArrivals
      foregroundArrivals += 1
    }
    if state == .background {
      process.backgroundStint = BackgroundStint(since: at)
      process.graceDeadline = config.backgroundGrace.map { at.advanced(by: $0) }
    }
    // The previous daemon's SIGKILL went out before this was saved (the state file is written after the kill):
    // the process is dead or dying, and its kill decides its record.
    process.killInFlight = adopted.killInFlight
    app.process = process
    trackedApps[adopted.name] = app
    rewatchSuspendedMemory(adopted.name, from: .notRunning, to: state, at: at)
    guard let inFlight = adopted.killInFlight else {
      rewatchCPU(adopted.name, at: at)
      rewatchDiskWrites(adopted.name, at: at)
      return []
    }
    // A jetsam victim holds back the next kill until it is gone, as it would have.
    if inFlight.kill == .jetsam {
      jetsam.killing(adopted.name, pid: pid, until: at.advanced(by: config.killTimeout))
    }
    return []
  }
}
