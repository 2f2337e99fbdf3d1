import JetsamValues

/// What moves an app: the user's requests (launch, activate, background, suspend, resume) and the spawn's outcome.
/// A request checks everything it needs before it changes anything, so a refusal leaves the table as it was.
extension Lifecycle {
  /// Declares app `name` or gives it new settings; `lastLaunch` is the launch number of its last recorded exit.
  mutating func configure(
    _ name: String, _ settings: AppSettings, launchCount: Int, lastLaunch: Int?
  ) -> [PolicyAction] {
    // Declared before anything happened to it: its times start at the clock's origin.
    var app = apps[name] ?? TrackedApp(name: name, launch: 0, at: Instant(nanoseconds: 0))
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
    app.launch = max(app.launch, launchCount, lastLaunch ?? 0)
    apps[name] = app
    return actions
  }

  /// Starts a launch; `previous` is the app's last recorded exit, which the new process is told of.
  mutating func launch(
    _ name: String, foreground: Bool, previous: ExitRecord?, at: Instant
  ) throws(PolicyError) -> [PolicyAction] {
    var app = try known(name)
    guard !app.state.isRunning else { throw .illegalTransition(app: name, from: app.state, request: "launch") }
    if let next = app.nextSettings {
      app.settings = next
      app.nextSettings = nil
    }
    guard let spec = app.settings.launch else { throw .notLaunchable(app: name) }
    apps[name] = app
    let changed = move(name, to: .launching, at: at)
    apps[name]?.launch += 1
    apps[name]?.pendingLaunch = PendingLaunch(toForeground: foreground, previousDigest: previous?.savedState.digest)
    return [
      changed,
      .spawn(app: name, launch: apps[name]!.launch, previousExit: previous.map(PreviousExit.init), spec: spec),
    ]
  }

  /// The launch's process started as `pid`; `previous` is the app's last recorded exit.
  mutating func spawned(_ name: String, pid: Int32, previous: ExitRecord?, at: Instant) -> [PolicyAction] {
    guard let app = apps[name], app.state == .launching, let pending = app.pendingLaunch else { return [] }
    var process = RunningProcess(pid: pid, spawnedAt: at, previousDigest: pending.previousDigest)
    // After a kill or a crash (not a quit: a fresh start is right then), what it left must come back.
    if pending.previousDigest != nil, let previous, previous.cause.reason != .normalAppExit {
      process.restoration.deadline = at.advanced(by: rules.restorationAllowance)
    }
    // An app whose acknowledgements are always expected is watched from its first event.
    process.channel.speaksProtocol = app.settings.acknowledgements == .always
    process.metrics.afterExit = previous?.cause.reason
    process.timers.awaitsFirstDraw = pending.toForeground
    apps[name]?.pendingLaunch = nil
    apps[name]?.process = process
    guard pending.toForeground else { return [move(name, to: .background, at: at)] }
    return makeRoomInForeground(for: name, at: at) + [move(name, to: .foregroundActive, at: at)]
  }

  /// The launch's process could not be started.
  mutating func spawnFailed(_ name: String, at: Instant) -> [PolicyAction] {
    guard apps[name]?.state == .launching else { return [] }
    // Nothing ran, so there is no exit to record; the launch number stays used.
    let changed = move(name, to: .terminated, at: at)
    apps[name]?.pendingLaunch = nil
    return [changed]
  }

  /// Brings an app to the foreground, launching it if it does not run (`previous`: its last recorded exit).
  mutating func activate(_ name: String, previous: ExitRecord?, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    switch app.state {
    case .notRunning, .terminated:
      return try launch(name, foreground: true, previous: previous, at: at)
    case .launching:
      apps[name]?.pendingLaunch?.toForeground = true
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

  /// Sends a foreground app to the background.
  mutating func moveToBackground(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.state.holdsForegroundSlot else {
      throw .illegalTransition(app: name, from: app.state, request: "background")
    }
    return leaveForeground(name, at: at)
  }

  /// Refuses a suspension of an app that neither holds the foreground nor runs in the background.
  func checkSuspendable(_ name: String) throws(PolicyError) {
    let app = try known(name)
    guard app.state.holdsForegroundSlot || app.state == .background else {
      throw .illegalTransition(app: name, from: app.state, request: "suspend")
    }
  }

  /// Resumes a suspended app into the background.
  mutating func resume(_ name: String, at: Instant) throws(PolicyError) -> [PolicyAction] {
    let app = try known(name)
    guard app.state == .suspended, let pid = app.process?.pid else {
      throw .illegalTransition(app: name, from: app.state, request: "resume")
    }
    // The reverse of suspend (state first, then the stop): the process runs again, then the state says so.
    return [.resume(app: name, pid: pid), move(name, to: .background, at: at)]
  }
}
