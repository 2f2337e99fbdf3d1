import JetsamValues

/// The whole jetsam policy as a value: events in, actions out, no I/O and no clock.
///
/// The shell feeds it every request, result, observation and timer tick, and performs the actions it
/// returns in order. After each event it re-arms its timer at ``nextDeadline``.
public struct JetsamPolicy: Sendable {
  /// The tunables in force (replaced by the `reconfigure` event).
  public private(set) var config: PolicyConfig

  /// The lifecycle: every configured app, its state and band, the foreground slots.
  var lifecycle: Lifecycle
  /// Acknowledgements and their watchdog, background tasks, the app's commands and graceful terminates.
  var acknowledgements: Acknowledgements

  /// Jetsam: the pressure level, the memory available, the kill waiting for its victim.
  var jetsam = JetsamLoop()

  /// Each app's last exit, as recorded, and the ended ad-hoc apps in the order they are forgotten.
  var exits = ExitBook()

  /// Whether the emulated device is idle and charging (`processing` background tasks run unbounded then).
  public internal(set) var deviceCharging = false
  /// The CPU monitor: the watched apps' limits, readings and reading schedule.
  var cpu = CPUMonitor()
  /// The disk-write monitor: the watched apps' readings and reading schedule.
  var diskWrites = DiskWriteMonitor()
  /// Suspended apps' memory: who is read when, and the readings held.
  var suspendedMemory = SuspendedMemoryMonitor()
  /// The signpost intervals under way.
  var signposts = SignpostMeter()

  /// A policy with no apps, no sample yet (level normal) and `config` in force.
  public init(config: PolicyConfig) {
    self.config = config
    self.lifecycle = Lifecycle(rules: LifecycleRules(config))
    self.acknowledgements = Acknowledgements(rules: AcknowledgementRules(config))
  }

  /// The pressure level in force: the forced level if any, else the measured one.
  public var level: PressureLevel { jetsam.level }

  /// The last sample of memory available to the device, if any arrived yet.
  public var availableBytes: Int64? { jetsam.availableBytes }

  /// A level forced by a user, overriding the measured level; nil when measurements rule.
  public var forcedLevel: PressureLevel? { jetsam.forcedLevel }

  /// The app called `name`, if it has been configured.
  public func app(named name: String) -> AppStatus? { lifecycle.apps[name]?.status }

  /// How app `name` is configured as it runs now (its launch spec, the one its process was started with, and the
  /// settings the policy treats it by); a reload's settings are not among them until its next launch.
  public func settings(of name: String) -> AppSettings? { lifecycle.apps[name]?.settings }

  /// Every configured app, sorted by name.
  public var apps: [AppStatus] { lifecycle.apps.keys.sorted().compactMap { lifecycle.apps[$0]?.status } }

  /// Whether the app counts as suspended and is neither seen stopped yet nor counted incomplete by the suspend
  /// timeout (cheap: checked for every waiting app after every batch).
  public func isStopAwaited(_ name: String) -> Bool {
    guard let index = lifecycle.apps.index(forKey: name) else { return false }
    return lifecycle.apps.values[index].state == .suspended
      && lifecycle.apps.values[index].process?.suspendIncomplete != true
  }

  /// How many configured apps are in each state: what a status line needs, kept as apps change (no pass over them).
  public var appCountsByState: [LifecycleState: Int] { lifecycle.apps.countsByState }

  /// Handles one event and returns what the shell must do, in order.
  ///
  /// Requests throw a ``PolicyError`` when refused, and the policy is then unchanged. Results and
  /// observations never throw: one about an unknown app or an old pid is ignored and returns no action.
  public mutating func handle(_ event: PolicyEvent) throws(PolicyError) -> [PolicyAction] {
    // Every request checks what it needs before it changes anything, so a refusal leaves no half-applied
    // change behind without copying the whole policy per event (which made a batch of n events cost n²).
    var actions = try apply(event)
    if let at = event.instant { actions = attachLifecycleEvents(actions, at: at) }
    lifecycle.apps.fileDeadlines(DeadlineContext(timings: config.lifecycle, charging: deviceCharging))
    return actions
  }

  private mutating func apply(_ event: PolicyEvent) throws(PolicyError) -> [PolicyAction] {
    switch event {
    case .configure(let name, let settings, let launchCount):
      return lifecycle.configure(name, settings, launchCount: launchCount, lastLaunch: exits.last(of: name)?.launch)
    case .launch(let name, let foreground, let at):
      return afterMoves(
        try lifecycle.launch(name, foreground: foreground, previous: exits.last(of: name), at: at), at: at)
    case .activate(let name, let at):
      return afterMoves(try lifecycle.activate(name, previous: exits.last(of: name), at: at), at: at)
    case .moveToBackground(let name, let at):
      return afterMoves(try lifecycle.moveToBackground(name, at: at), at: at)
    case .suspend(let name, let at):
      try lifecycle.checkSuspendable(name)
      return suspendNow(name, at: at)
    case .resume(let name, let at):
      return afterMoves(try lifecycle.resume(name, at: at), at: at)
    case .kill(let name, let reason, _):
      _ = try lifecycle.known(name)
      return try lifecycle.apps[name]!.killForUser(reason: reason, pressure: jetsam.pressure)
    case .terminate(let name, let at):
      _ = try lifecycle.known(name)
      return try acknowledgements.terminate(&lifecycle.apps[name]!, at: at)
    case .reconfigure(let config):
      self.config = config
      lifecycle.rules = LifecycleRules(config)
      acknowledgements.rules = AcknowledgementRules(config)
      // Budgets may have changed. A reload carries no instant: the origin stands for "sample at once", which the
      // next deadline then does (later samples carry their real instants).
      rewatchEveryApp(at: cpu.nextRoundAt ?? Instant(nanoseconds: 0))
      return []
    case .setCharging(let charging, let at):
      return setCharging(charging, at: at)
    case .cpuSampled(let samples, let at):
      return cpuSampled(samples, at: at)
    case .tracerChecked(let name, let pid, let tracer, let at):
      let pressure = jetsam.pressure
      return acknowledging(name) { $0.tracerChecked(pid: pid, tracer: tracer, of: &$1, pressure: pressure, at: at) }
    case .diskWritesSampled(let samples, let at):
      return diskWritesSampled(samples, at: at)
    case .signpostCountersRead(let app, let pid, let reading, let counters, _):
      signpostCountersRead(app: app, pid: pid, reading: reading, counters: counters)
      return []
    case .suspendedMemorySampled(let samples, let at):
      return suspendedMemorySampled(samples, at: at)
    case .crashReported(let name, let pid, let crash, _):
      // A crash of a running app gets its diagnostic, once per process and within the launch's budget: a process
      // crashes once, so a second report of it is no crash (its handler reports once), and one past the budget
      // waits out its handler's timeout rather than costing a capture.
      guard let process = lifecycle.apps[name]?.process, process.pid == pid,
        !process.crashesDiagnosed.contains(crash.pid), process.crashesDiagnosed.count < config.crashDiagnosesPerLaunch
      else { return [] }
      lifecycle.apps[name]?.process?.crashesDiagnosed.insert(crash.pid)
      return [.diagnose(app: name, pid: pid, .crash(crash))]
    case .forceLevel(let forced, let at):
      return forceLevel(forced, at: at)
    case .spawned(let name, let pid, let at):
      return afterMoves(lifecycle.spawned(name, pid: pid, previous: exits.last(of: name), at: at), at: at)
    case .spawnFailed(let name, _, let at):
      return afterMoves(lifecycle.spawnFailed(name, at: at), at: at)
    case .suspendCompleted(let name, let locks, let at):
      let completed = lifecycle.apps[name]?.suspendCompleted(at: at) ?? []
      // The locks seen with the stop go to the lock machine, as a look of its own once stopped would.
      guard !locks.isEmpty, let pid = lifecycle.apps[name]?.process?.pid else { return completed }
      return completed + locksInspected(name, pid: pid, locks: locks, stage: nil, at: at)
    case .locksInspected(let name, let pid, let locks, let stage, let at):
      return locksInspected(name, pid: pid, locks: locks, stage: stage, at: at)
    case .continuedWhileSuspended(let name, let pid, let at):
      return lifecycle.apps[name]?.continuedWhileSuspended(pid: pid, at: at, timeout: config.suspendTimeout) ?? []
    case .socketsDefuncted(let name, let pid, let sockets, let problem, _):
      return lifecycle.apps[name]?.socketsDefuncted(pid: pid, sockets: sockets, problem: problem) ?? []
    case .killSignalled(let name, let pid, let at, let memory):
      lifecycle.apps[name]?.killSignalled(pid: pid, at: at, memory: memory)
      return []
    case .exitRecorded(let record):
      return exitRecorded(record)
    case .hookEnded(let name, let pid, let event, let at):
      return acknowledging(name) { $0.hookEnded(event: event, pid: pid, of: &$1, at: at) }
    case .commandEnded(let name, let pid, let run, let succeeded, let at):
      return acknowledging(name) { $0.commandEnded(run, succeeded: succeeded, pid: pid, of: &$1, at: at) }
    case .commandRunObserved(let name, let pid, let run, _):
      // Kept for the exit record of the process it ran for.
      if lifecycle.apps[name]?.process?.pid == pid { lifecycle.apps[name]?.process?.commands.keep(run) }
      return []
    case .memorySampled(let available, let at):
      return memorySampled(available: available, at: at)
    case .exited(let name, let pid, let end, let oomKilled, let at):
      return exited(name, pid: pid, end: end, oomKilled: oomKilled, at: at)
    case .tick(let at):
      return tick(at: at)
    case .appMessage(let name, let pid, let message, let at):
      return appMessage(name, pid: pid, message: message, at: at)
    case .adopt(let adopted, let at):
      return adopt(adopted, at: at)
    }
  }

  /// The last recorded exit of the app called `name`, if any.
  public func lastExit(of name: String) -> ExitRecord? { exits.last(of: name) }

  /// The last recorded exit of every app known, by name.
  public var allLastExits: [ExitRecord] { exits.all }

  /// The oom_score_adj for an app in `band`: lower bands are the kernel's first choice, as they are jetsam's
  /// (idle 900, background 660, foreground 100, audio and above at the floor), never below the floor.
  public func oomScoreAdj(for band: Band) -> Int32 {
    max(config.oomScoreFloor, Int32(900 - band.rawValue * 80))
  }

}
