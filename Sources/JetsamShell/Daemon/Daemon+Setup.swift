import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// The parts jetsamd is built from, each made by a step of its own, in the order ``Daemon/init(config:options:)``
/// takes them.
extension Daemon {
  // MARK: Before the daemon is whole

  /// The daemon must never be what dies under pressure: lowers its own oom_score_adj, and sets its nice value and
  /// scheduler as the config says (what cannot be done is a warning). Returns the floor of the apps' scores.
  static func takeOwnPriority(_ config: DaemonConfig, log: Logger) -> Int32 {
    // Lowering oom_score_adj needs CAP_SYS_RESOURCE; without it nothing can go below the value we inherited, so that
    // value is also the floor for the apps' scores.
    try? writeTextFile("/proc/self/oom_score_adj", String(config.daemonOOMScoreAdj))
    let oomScoreFloor = (try? JetsamPlatform.oomScoreAdj(pid: getpid())) ?? 0
    if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, config.daemonNice) != 0 {
      log.warning("could not set own nice value to \(config.daemonNice) (\(SystemError.current("setpriority")))")
    }
    if let priority = config.daemonRealtimePriority {
      do {
        try RealtimeScheduling.enter(priority: priority)
      } catch {
        log.warning("could not run at SCHED_FIFO \(priority) (\(error)); staying on the normal scheduler")
      }
    }
    if oomScoreFloor > config.daemonOOMScoreAdj {
      log.warning(
        "could not lower own oom_score_adj to \(config.daemonOOMScoreAdj) (no CAP_SYS_RESOURCE); "
          + "it stays \(oomScoreFloor)")
    }
    return oomScoreFloor
  }

  /// Makes the state directory (and its `logs`), private to jetsamd, and locks it.
  static func claimStateDirectory(_ stateDirectory: String) throws -> DaemonLock {
    try FileManager.default.createDirectory(atPath: stateDirectory + "/logs", withIntermediateDirectories: true)
    // Private to jetsamd (records, state, app logs): members read them through the control socket.
    chmod(stateDirectory, 0o700)
    // Before anything of the state directory or the device is touched: a second daemon stops here.
    return try DaemonLock.stateDirectory(stateDirectory)
  }

  /// The exit record log in the state directory, written off the loop.
  static func recordWriter(
    rotation: RecordsConfig, stateDirectory: String, loop: EventLoop, log: Logger
  ) throws -> RecordWriter {
    try RecordWriter(
      log: ExitRecordLog(
        path: stateDirectory + "/exits.jsonl", rotation: rotation, warn: { [log] message in log.warning(message) }),
      loop: loop)
  }

  /// What the device's memory is read from: the host's, or the device cgroup's usage against the RAM configured.
  static func memoryCounter(_ ram: RAMSetting, device: DeviceCgroup) throws -> MemoryCounter {
    switch ram {
    case .host: try .host()
    case .bytes(let ram): .device(ram: ram, usage: { [device] in try device.memoryUsage() })
    }
  }

  /// How apps are started: through the spawner service at `spawnerSocket`, or by jetsamd itself; and whether they get
  /// cgroup namespaces of their own. Under systemd the unit leaves CAP_SYS_ADMIN out: there apps share jetsamd's
  /// cgroup namespace, and `appUser` is what keeps them in their cgroups. With a spawner service, its capabilities
  /// decide (it says in its hello).
  static func processLauncher(
    spawnerSocket: String?, loop: EventLoop, log: Logger
  ) -> (launcher: any ProcessLauncher, cgroupNamespaces: Bool) {
    guard let path = spawnerSocket else { return (KernelProcessLauncher(), SpawnRequest.canCreateCgroupNamespaces) }
    let remote = RemoteProcessLauncher(loop: loop, path: path, log: log)
    return (remote, remote.serviceCreatesCgroupNamespaces ?? SpawnRequest.canCreateCgroupNamespaces)
  }

  /// What the app supervisor works through in the daemon: the device's cgroups, the kernel's signals, the record
  /// log, the policy's scores, the kill journal and the diagnostics service.
  static func supervisorSeams(
    config: DaemonConfig, options: DaemonOptions, loop: EventLoop, device: DeviceCgroup, launcher: any ProcessLauncher,
    records: RecordWriter, users: ThreadUserDirectory, policyLoop: PolicyLoop, journal: Journal, log: Logger
  ) throws -> AppSupervisor.Seams {
    AppSupervisor.Seams(
      loop: loop, cgroups: device, launcher: launcher, signals: KernelSignals(), records: records,
      releaser: ThreadMemoryReleaser(loop: loop), users: users,
      openChannel: { [loop] fd, onInput in try AppChannel(fd: fd, loop: loop, onInput: onInput) },
      oomScore: { [policyLoop] band in policyLoop.policy.oomScoreAdj(for: band) },
      // Each kill's decision, noted before its signal and dropped once a state save holds it; beside the socket, in
      // the runtime directory (tmpfs, kept across restarts), where no write waits on a disk, frozen or slow.
      killJournal: KillJournal(directory: directoryPart(of: options.socketPath(in: config)), log: log),
      diagnostics: DiagnosticsService(
        loop: loop, launcher: launcher, stateDirectory: options.stateDirectory(in: config),
        toolPath: Self.siblingProgram("jetsam-stack"), settings: config.diagnostics.service,
        keep: config.diagnostics.keep, log: log, journal: journal, workers: try .background(loop: loop)))
  }

  // MARK: Once the daemon is whole

  /// Gives the supervisor what only the daemon has: the environment passed on to apps, cgroup namespaces, the
  /// disk-write monitor's thread, the sockets tool, the crash handler.
  func equipSupervisor(cgroupNamespaces: Bool) throws {
    supervisor.requests.passedEnvironment = Self.passedEnvironment(config)
    supervisor.requests.cgroupNamespaces = cgroupNamespaces
    supervisor.diskWrites.worker = try BackgroundWork(loop: loop, label: "jetsamd.disk-writes")
    // Suspended apps' network sockets are destroyed by jetsam-sockets, started where the apps run (the spawner
    // service's network under systemd), its output read on a helper thread of their own.
    supervisor.suspender.sockets = SocketDefuncter(
      loop: loop, launcher: supervisor.launcher, toolPath: Self.siblingProgram("jetsam-sockets"),
      worker: try BackgroundWork(loop: loop, label: "jetsamd.sockets"))
    if config.diagnostics.crashes {
      supervisor.requests.crashHandler = Self.crashHandlerLibrary
      if supervisor.requests.crashHandler == nil {
        log.warning("libjetsam-crash.so is not installed beside jetsamd or in ../lib/jetsam: crashes get no stacks")
      }
    }
  }

  /// The state file, kept on a thread of its own.
  func makeStateKeeper() throws -> StateKeeper {
    let keeper = try StateKeeper(
      path: options.stateDirectory(in: config) + "/state.json", loop: loop, log: log,
      isBusy: { [unowned self] in !self.supervisor.suspender.isIdle },
      snapshot: { [unowned self] in self.savedState() })
    keeper.killJournal = supervisor.killJournal
    return keeper
  }

  /// Feeds the policy the config's apps and what earlier runs recorded: launch numbers and reasons go on from there
  /// (the last exits kept at the last rotation, then the log since).
  func recallEarlierRuns() throws {
    var lastByApp: [String: ExitRecord] = [:]
    for record in try RecordListFile.read(records.log.lastExitsPath) { lastByApp[record.app] = record }
    lastByApp.merge(try ExitRecordPage.lastRecordPerApp(path: records.log.path)) { $1 }
    records.lastExits = { [unowned self] in self.policy.allLastExits }
    // Configured apps first: the last exits that follow are kept for them, and the rest count as ended ad-hoc apps,
    // of which the policy remembers a bounded number.
    try submit(config.configureEvents)
    try submit(lastByApp.values.sorted { $0.time < $1.time }.map { .exitRecorded($0) })
  }

  /// The device's memory pressure: the monitor started on `counter` (its samples to the policy), and the balloons
  /// made in the device.
  func makePressureControl(layout: CgroupLayout, counter: MemoryCounter) throws -> PressureControl {
    try PressureControl(
      loop: loop,
      backend: DevicePressureBackend(
        loop: loop, log: log, device: device, layout: layout, launcher: supervisor.launcher,
        watchesHost: config.device.ram == .host),
      counter: counter, thresholds: config.device.thresholds,
      onSample: { [unowned self] available, at in self.observe(.memorySampled(available: available, at: at)) })
  }

  /// The control socket (on the listener systemd passed, if any), its requests handled by their families, each
  /// through its view of the daemon.
  func makeControlServer(
    users: ThreadUserDirectory, budget: OutputBudget, inherited: FileDescriptor?, startedAt: Instant
  ) throws -> ControlServer {
    let view = DaemonControlView(daemon: self, startedAt: startedAt)
    let requests = ControlRequestHandler(
      apps: AppRequests(
        daemon: view,
        commandCheck: LaunchCommandChecker(
          loop: loop, launcher: supervisor.launcher, toolPath: Self.siblingProgram("jetsam-runnable"),
          worker: try BackgroundWork(loop: loop, label: "jetsamd.command-check"), log: log)),
      status: StatusRequests(daemon: view), pressure: PressureRequests(daemon: view),
      records: RecordRequests(daemon: view, background: try BackgroundWork(loop: loop)))
    return try ControlServer(
      loop: loop, path: options.socketPath(in: config), allowedGroup: config.controlGroup, users: users, log: log,
      budget: budget, inherited: inherited,
      handler: { request, connection in requests.handle(request, from: connection) })
  }

  /// The exposition's textfile and HTTP endpoint (on the listener systemd passed, if any).
  func makeMetricsOutputs(budget: OutputBudget, inherited: FileDescriptor?) throws -> MetricsOutputs {
    let metrics = DaemonMetricsView(daemon: self)
    return MetricsOutputs(
      textfile: try MetricsTextfile(
        view: metrics, loop: loop, writer: try BackgroundWork(loop: loop, label: "jetsamd.metrics-textfile"), log: log),
      listener: try MetricsListener(loop: loop, log: log, budget: budget, inherited: inherited) {
        metrics.expositionText()
      })
  }

  /// What `watch` clients of the control socket are pushed.
  func makeLiveFeed() throws -> LiveFeed<ControlServer> {
    try LiveFeed(
      loop: loop, control: control,
      sources: LiveFeed.Sources(
        app: { [unowned self] name in
          self.policy.app(named: name).map { ($0.launch, $0.state.isRunning ? $0.pid : nil) }
        },
        appMemory: { [unowned self] in self.runningAppMemory() },
        availableBytes: { [unowned self] in self.pressure.monitor.lastAvailable }))
  }

  /// What each signal asks of the daemon.
  var signalHandlers: DaemonSignals.Handlers {
    DaemonSignals.Handlers(
      stop: { [unowned self] in self.beginShutdown() }, reload: { [unowned self] in self.reload() },
      childContinued: { [unowned self] in self.supervisor.suspender.noticeContinued() },
      childChanged: { [unowned self] in self.supervisor.suspender.noticeContinuedSoon() })
  }

  /// Takes over what the previous jetsamd left: the records it had not written, and the apps it left running, with
  /// the `channels` systemd kept for them; the channels of apps gone meanwhile are closed.
  func takeOverPreviousRun(channels: [String: FileDescriptor]) {
    var storedChannels = channels
    let saved = readSavedState()
    takeOverUnwrittenRecords(pending: saved?.pendingRecords ?? [])
    let adopted = readopt(saved, storedChannels: &storedChannels)
    if adopted > 0 { log.notice("re-adopted \(adopted) app(s) left running by the previous jetsamd") }
    for (name, fd) in storedChannels {
      // The app is gone: its channel has nothing more to say.
      fd.close()
      service.manager.removeStoredDescriptor(name: Daemon.channelStorePrefix + name)
    }
  }

  /// The state file the previous jetsamd left, if any (a damaged one is logged and ignored).
  func readSavedState() -> DaemonState? {
    do {
      return try DaemonState.read(path: stateKeeper.path)
    } catch let error as StateFileVersionError {
      log.warning("ignoring \(stateKeeper.path): \(error)")
      return nil
    } catch {
      log.error("ignoring damaged \(stateKeeper.path): \(error)")
      return nil
    }
  }

  /// Re-adopts what the previous jetsamd left running, as its state file (if it is from this boot) and the cgroup tree
  /// say, then has the config in force configure them; returns how many were adopted.
  func readopt(_ state: DaemonState?, storedChannels: inout [String: FileDescriptor]) -> Int {
    let readoption = Readoption(
      cgroups: device, launcher: supervisor.launcher, supervisor: supervisor, log: log,
      config: config, policyLoop: policyLoop, killsDecided: supervisor.killJournal?.entriesLeft() ?? [:],
      now: MonotonicClock.now())
    let current = state?.bootID == DaemonState.currentBootID ? state : nil
    // The device's conditions first: the apps adopted next are watched as the lab left them.
    if current?.deviceCharging == true { try? submit([.setCharging(true, at: MonotonicClock.now())]) }
    let adopted = readoption.run(state: current, storedChannels: &storedChannels)
    // The adopted apps run as they were started; the config in force (it may have changed meanwhile) gives them its
    // caps now and the rest at their next launch, as a reload would.
    do {
      try submit(config.configureEvents)
    } catch {
      log.error("configuring the adopted apps: \(error)")
    }
    stateKeeper.changed(urgent: true)
    return adopted
  }

  /// What the log says once jetsamd is ready.
  func readyLine(layout: CgroupLayout, counter: MemoryCounter) -> String {
    "ready: cgroups \(layout.modeName) (device \(device.displayPath)), suspend \(config.suspend.mode.rawValue), "
      + "scheduler \(RealtimeScheduling.fifoPriority(of: 0).map { "SCHED_FIFO \($0)" } ?? "normal"), "
      + "app cgroup namespaces \(supervisor.requests.cgroupNamespaces ? "yes" : "no (no CAP_SYS_ADMIN)"), "
      + "RAM \(ByteSize.format(counter.ramBytes)), socket \(options.socketPath(in: config)), "
      + "records \(records.log.path)"
  }

  // MARK: Settings and limits

  /// The values jetsamd has of the variables the config passes on to apps.
  static func passedEnvironment(_ config: DaemonConfig) -> [String: String] {
    let own = ProcessInfo.processInfo.environment
    return Dictionary(uniqueKeysWithValues: config.passEnvironment.compactMap { key in own[key].map { (key, $0) } })
  }

  /// Each app holds about ten descriptors (pidfd, cgroup counters, events): lift the soft limit to the hard one
  /// so that hundreds of apps fit.
  static func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  package static func policyConfig(_ config: DaemonConfig, thresholds: PressureThresholds, oomScoreFloor: Int32)
    -> PolicyConfig
  {
    var policy = PolicyConfig(
      thresholds: thresholds, foregroundSlots: config.foregroundSlots,
      backgroundGrace: config.suspend.backgroundGrace?.duration, killTimeout: config.killTimeout.duration,
      terminateGrace: config.terminateGrace.duration, lifecycle: config.lifecycleTimings,
      suspendTimeout: config.suspend.timeout.duration, oomScoreFloor: oomScoreFloor)
    policy.suspendBeforeKill = config.suspend.beforeJetsamKill
    policy.cpu = config.cpuMonitor.policyConfig(timeScale: config.timeScale)
    policy.watchdogUnderDebugger = config.watchdog.underDebugger
    return policy
  }
}
