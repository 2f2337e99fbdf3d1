import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// jetsamd: one event loop that owns the policy, feeds it every event through one entry point, and has the
/// ``AppSupervisor`` carry out what it decides.
///
/// The loop's sources (kernel notifications, timers, signals, the control socket, app channels) all end in
/// ``observe(_:)`` or ``submit(_:)``; nothing here waits. Every handler runs on the loop's thread, so nothing
/// needs a lock.
public final class Daemon {
  public static let version = "0.1.0"
  /// The name of an app's channel in systemd's descriptor store: `channel.NAME`.
  static let channelStorePrefix = "channel."

  /// The config in force; only a reload (Daemon+Reload.swift) replaces it.
  var config: DaemonConfig
  let options: DaemonOptions
  let log: Logger
  let loop: EventLoop
  let device: DeviceCgroup
  /// The exit record log, written off the loop.
  let records: RecordWriter
  let supervisor: AppSupervisor
  /// Where the supervisor and its parts report what came of their work (``take(_:)``).
  private let inbox = DaemonInbox()
  /// What systemd hears of jetsamd.
  let service = ServiceStatus()
  /// The one way into the policy.
  let policyLoop: PolicyLoop
  /// The policy: read it anywhere, change it only through ``submit(_:)`` and ``observe(_:)``.
  var policy: JetsamPolicy { policyLoop.policy }
  /// Tells the log, the journal and the counters what the policy decided and what the records say (the metrics
  /// view reads its counters).
  let announcer: PolicyAnnouncer
  /// The device's memory pressure: the monitor, the thresholds, the balloon, the requests waiting on pressure.
  private(set) var pressure: PressureControl!
  var control: ControlServer!
  /// What `watch` clients are pushed.
  private(set) var live: LiveFeed<ControlServer>!
  /// The exposition's textfile and HTTP endpoint, when the config asks for them.
  var metricsOutputs: MetricsOutputs!
  var stateKeeper: StateKeeper!
  /// Held for life: one daemon per state directory and per device (``DaemonLock``).
  private let locks: [DaemonLock]
  private lazy var heapTrimmer = HeapTrimmer(loop: loop)
  /// Stop, reload, a continued child, the parent's end.
  private var signals: DaemonSignals?
  /// Where a stop is (Daemon+Shutdown.swift).
  var stopPhase = StopPhase.running

  /// Sets up cgroups, the record log, pressure sources and the control socket; ready when it returns.
  public init(config: DaemonConfig, options: DaemonOptions) throws {
    let startedAt = MonotonicClock.now()
    self.config = config
    self.options = options
    log = options.logger
    let stateDirectory = options.stateDirectory(in: config)
    loop = try EventLoop()
    Daemon.raiseDescriptorLimit()

    // The daemon must never be what dies under pressure. Lowering oom_score_adj needs CAP_SYS_RESOURCE; without
    // it nothing can go below the value we inherited, so that value is also the floor for the apps' scores.
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
        "could not lower own oom_score_adj to \(config.daemonOOMScoreAdj) (no CAP_SYS_RESOURCE); it stays \(oomScoreFloor)"
      )
    }

    try FileManager.default.createDirectory(atPath: stateDirectory + "/logs", withIntermediateDirectories: true)
    // Private to jetsamd (records, state, app logs): members read them through the control socket.
    chmod(stateDirectory, 0o700)
    // Before anything of the state directory or the device is touched: a second daemon stops here.
    let stateLock = try DaemonLock.stateDirectory(stateDirectory)
    records = try RecordWriter(
      log: ExitRecordLog(
        path: stateDirectory + "/exits.jsonl", rotation: config.records,
        warn: { [log] message in log.warning(message) }),
      loop: loop)
    let layout = try CgroupLayout.detect()
    device = try DeviceCgroup.create(layout: layout, name: config.device.cgroupName)
    locks = [stateLock, try DaemonLock.device(device.unifiedDirectory)]
    if let cpu = config.device.appsCPULimit { try device.setAppsCPULimit(percent: cpu) }

    let counter: MemoryCounter
    switch config.device.ram {
    case .host: counter = try .host()
    case .bytes(let ram): counter = .device(ram: ram, usage: { [device] in try device.memoryUsage() })
    }
    let thresholds = config.device.thresholds.resolved(ram: counter.ramBytes)
    policyLoop = try PolicyLoop(
      policy: JetsamPolicy(config: Daemon.policyConfig(config, thresholds: thresholds, oomScoreFloor: oomScoreFloor)),
      scheduling: loop, log: log)
    let journal = Journal()
    announcer = PolicyAnnouncer(log: log, journal: journal)
    let launcher: any ProcessLauncher
    var spawnerCreatesCgroupNamespaces: Bool?
    if let path = options.spawnerSocket ?? config.spawnerSocket {
      let remote = RemoteProcessLauncher(loop: loop, path: path, log: log)
      launcher = remote
      spawnerCreatesCgroupNamespaces = remote.serviceCreatesCgroupNamespaces
    } else {
      launcher = KernelProcessLauncher()
    }
    // Launches as a user and the control socket's peer checks ask the user databases through it, off the loop.
    let users = try ThreadUserDirectory(loop: loop)
    supervisor = AppSupervisor(
      seams: AppSupervisor.Seams(
        loop: loop, cgroups: device, launcher: launcher, signals: KernelSignals(), records: records,
        releaser: ThreadMemoryReleaser(loop: loop), users: users,
        openChannel: { [loop] fd, onInput in try AppChannel(fd: fd, loop: loop, onInput: onInput) },
        oomScore: { [policyLoop] band in policyLoop.policy.oomScoreAdj(for: band) },
        // Each kill's decision, noted before its signal and dropped once a state save holds it; beside the socket,
        // in the runtime directory (tmpfs, kept across restarts), where no write waits on a disk, frozen or slow.
        killJournal: KillJournal(directory: directoryPart(of: options.socketPath(in: config)), log: log),
        diagnostics: DiagnosticsService(
          loop: loop, launcher: launcher, stateDirectory: stateDirectory,
          toolPath: Self.siblingProgram("jetsam-stack"), settings: config.diagnostics.service,
          keep: config.diagnostics.keep, log: log, journal: journal, workers: try .background(loop: loop))),
      inbox: inbox, log: log, suspendMode: config.suspend.mode, stateDirectory: stateDirectory)
    supervisor.requests.passedEnvironment = Self.passedEnvironment(config)
    // Under systemd the unit leaves CAP_SYS_ADMIN out: there apps share jetsamd's cgroup namespace, and
    // `appUser` is what keeps them in their cgroups.
    // With a spawner service, its capabilities decide (it says in its hello).
    supervisor.requests.cgroupNamespaces = spawnerCreatesCgroupNamespaces ?? SpawnRequest.canCreateCgroupNamespaces

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
    stateKeeper = try StateKeeper(
      path: stateDirectory + "/state.json", loop: loop, log: log,
      isBusy: { [unowned self] in !self.supervisor.suspender.isIdle },
      snapshot: { [unowned self] in self.savedState() })
    stateKeeper.killJournal = supervisor.killJournal
    connectSupervisor()

    // What earlier runs recorded: launch numbers and reasons go on from there (the last exits kept at the last
    // rotation, then the log since).
    var lastByApp: [String: ExitRecord] = [:]
    for record in try RecordListFile.read(records.log.lastExitsPath) { lastByApp[record.app] = record }
    lastByApp.merge(try ExitRecordPage.lastRecordPerApp(path: records.log.path)) { $1 }
    records.lastExits = { [unowned self] in self.policy.allLastExits }
    // Configured apps first: the last exits that follow are kept for them, and the rest count as ended ad-hoc
    // apps, of which the policy remembers a bounded number.
    try submit(config.configureEvents)
    try submit(lastByApp.values.sorted { $0.time < $1.time }.map { .exitRecorded($0) })

    pressure = try PressureControl(
      loop: loop,
      backend: DevicePressureBackend(
        loop: loop, log: log, device: device, layout: layout, launcher: supervisor.launcher,
        watchesHost: config.device.ram == .host),
      counter: counter, thresholds: config.device.thresholds,
      onSample: { [unowned self] available, at in self.observe(.memorySampled(available: available, at: at)) })
    // What systemd passed: the control socket (jetsamd.socket) and, after a restart, the apps' channels from
    // its descriptor store.
    var listener: FileDescriptor?
    var metricsSocket: FileDescriptor?
    var storedChannels: [String: FileDescriptor] = [:]
    for passed in ServiceManager.takePassedDescriptors() {
      if metricsSocket == nil && passed.name == MetricsListener.descriptorName
        && MetricsListener.isListeningSocket(passed.fd)
      {
        metricsSocket = FileDescriptor(rawValue: passed.fd)
      } else if listener == nil && ControlServer.isListeningSocket(passed.fd) {
        listener = FileDescriptor(rawValue: passed.fd)
      } else if passed.name.hasPrefix(Daemon.channelStorePrefix) {
        storedChannels[String(passed.name.dropFirst(Daemon.channelStorePrefix.count))] = FileDescriptor(
          rawValue: passed.fd)
      } else {
        Glibc.close(passed.fd)
      }
    }
    let view = DaemonControlView(daemon: self, startedAt: startedAt)
    let requests = ControlRequestHandler(
      apps: AppRequests(
        daemon: view,
        commandCheck: LaunchCommandChecker(
          loop: loop, launcher: supervisor.launcher, toolPath: Self.siblingProgram("jetsam-runnable"),
          worker: try BackgroundWork(loop: loop, label: "jetsamd.command-check"), log: log)),
      status: StatusRequests(daemon: view), pressure: PressureRequests(daemon: view),
      records: RecordRequests(daemon: view, background: try BackgroundWork(loop: loop)))
    // One budget for the output of every client, control and metrics alike.
    let outputBudget = OutputBudget(log: log)
    control = try ControlServer(
      loop: loop, path: options.socketPath(in: config), allowedGroup: config.controlGroup, users: users, log: log,
      budget: outputBudget, inherited: listener,
      handler: { request, connection in requests.handle(request, from: connection) })
    let metrics = DaemonMetricsView(daemon: self)
    metricsOutputs = MetricsOutputs(
      textfile: try MetricsTextfile(
        view: metrics, loop: loop, writer: try BackgroundWork(loop: loop, label: "jetsamd.metrics-textfile"), log: log),
      listener: try MetricsListener(loop: loop, log: log, budget: outputBudget, inherited: metricsSocket) {
        metrics.expositionText()
      })
    live = try LiveFeed(
      loop: loop, control: control,
      sources: LiveFeed.Sources(
        app: { [unowned self] name in
          self.policy.app(named: name).map { ($0.launch, $0.state.isRunning ? $0.pid : nil) }
        },
        appMemory: { [unowned self] in self.runningAppMemory() },
        availableBytes: { [unowned self] in self.pressure.monitor.lastAvailable }))

    signals = try DaemonSignals(
      loop: loop, exitWithParent: options.exitWithParent, log: log,
      handlers: DaemonSignals.Handlers(
        stop: { [unowned self] in self.beginShutdown() }, reload: { [unowned self] in self.reload() },
        childContinued: { [unowned self] in self.supervisor.suspender.noticeContinued() },
        childChanged: { [unowned self] in self.supervisor.suspender.noticeContinuedSoon() }))

    let saved = readSavedState()
    takeOverUnwrittenRecords(pending: saved?.pendingRecords ?? [])
    let adopted = readopt(saved, storedChannels: &storedChannels)
    if adopted > 0 { log.notice("re-adopted \(adopted) app(s) left running by the previous jetsamd") }
    for (name, fd) in storedChannels {
      // The app is gone: its channel has nothing more to say.
      fd.close()
      service.manager.removeStoredDescriptor(name: Daemon.channelStorePrefix + name)
    }
    loop.enableWatchdog()
    metricsOutputs.apply(config.metrics)
    log.notice(
      "ready: cgroups \(layout.modeName) (device \(device.displayPath)), suspend \(config.suspend.mode.rawValue), "
        + "scheduler \(RealtimeScheduling.fifoPriority(of: 0).map { "SCHED_FIFO \($0)" } ?? "normal"), "
        + "app cgroup namespaces \(supervisor.requests.cgroupNamespaces ? "yes" : "no (no CAP_SYS_ADMIN)"), "
        + "RAM \(ByteSize.format(counter.ramBytes)), socket \(options.socketPath(in: config)), records \(records.log.path)"
    )
    service.ready(statusLine())
  }

  /// Runs the event loop until shutdown; returns the exit code.
  public func run() throws -> Int32 {
    try loop.run()
  }

  private func connectSupervisor() {
    announcer.isConfigured = { [unowned self] name in self.config.apps[name] != nil }
    policyLoop.owners = PolicyLoop.Owners(
      perform: { [unowned self] action in self.perform(action) },
      handled: { [unowned self] event in self.handled(event) },
      batchDone: { [unowned self] in self.supervisor.finishBatch() },
      runDone: { [unowned self] changed in self.runDone(policyMayHaveChanged: changed) },
      isStopPending: { [unowned self] name in self.supervisor.isStopPending(name) })
    inbox.bind(to: self)
  }

  /// The state file the previous jetsamd left, if any (a damaged one is logged and ignored).
  private func readSavedState() -> DaemonState? {
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

  private func readopt(_ state: DaemonState?, storedChannels: inout [String: FileDescriptor]) -> Int {
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

  // MARK: The one way into the policy

  /// Feeds requests to the policy, all or nothing (``PolicyLoop/submit(_:)``).
  func submit(_ events: [PolicyEvent]) throws(PolicyError) { try policyLoop.submit(events) }

  /// Feeds an observation or result to the policy (``PolicyLoop/observe(_:)``).
  func observe(_ event: PolicyEvent) { policyLoop.observe([event]) }

  /// Feeds several observations in one run.
  func observe(_ events: [PolicyEvent]) { policyLoop.observe(events) }

  /// What an owner reported (``DaemonInbox``): its events go to the policy through the one entry point, its notices
  /// to whom they concern.
  func take(_ result: OwnerResult) {
    switch result {
    case .observed(let events): observe(events)
    case .recordDurable(let record): report(record)
    case .memoryFreed: pressure.sample()
    case .channelOpened(let name, let fd):
      service.manager.storeDescriptor(fd.rawValue, name: Daemon.channelStorePrefix + name)
    case .channelClosed(let name): service.manager.removeStoredDescriptor(name: Daemon.channelStorePrefix + name)
    case .backlogWritten: removeLeftoverRecords()
    }
  }

  /// Calls `then` once none of `apps` is still stopping (``PolicyLoop/afterSuspensions(of:then:)``).
  func afterSuspensions(of apps: [String], then: @escaping () -> Void) {
    policyLoop.afterSuspensions(of: apps, then: then)
  }

  /// The policy took `event`; its actions follow.
  private func handled(_ event: PolicyEvent) {
    announcer.handled(event)
    stateKeeper.note(event)
  }

  /// Carries out one action through ``ActionDispatch``, after the loop's observers have seen it.
  private func perform(_ action: PolicyAction) {
    announcer.performed(action)
    stateKeeper.note(action)
    ActionDispatch.carryOut(action, apps: supervisor, announcements: announcer)
    // Not there yet while start-up feeds the policy the records of earlier runs (forgetting the oldest ad-hoc apps
    // is an action too): there is no watcher to tell then.
    live?.publish(action)
    // An exit recorded, or a launch that failed while stopping, may have been the last thing the stop waited for.
    if stopPhase != .running {
      switch action {
      case .recordExit, .stateChanged(_, _, .terminated, _): finishShutdownIfDone()
      default: break
      }
    }
  }

  /// A run of the policy loop is over: the status, the state file and the requests waiting for pressure.
  private func runDone(policyMayHaveChanged: Bool) {
    if policyMayHaveChanged { updateStatus() }
    if stateKeeper.runEnded() { heapTrimmer.noteActivity() }
    pressure?.waiters.recheck()
  }

  /// Tells the world about a record that is already durable.
  private func report(_ record: ExitRecord) {
    announcer.recorded(record)
    control.broadcast(record)
    live.publish(record)
  }

  /// Bytes charged to each running app's cgroup (for `watch`).
  private func runningAppMemory() -> [String: Int64] {
    var memory: [String: Int64] = [:]
    for status in policy.apps where status.state.isRunning {
      guard let pid = status.pid, let process = supervisor.process(status.name, pid: pid) else { continue }
      memory[status.name] = (try? process.cgroup.memoryUsage()) ?? 0
    }
    return memory
  }

  // MARK: State

  /// What a successor needs to re-adopt the running apps: the policy's own saved form of each and its settings, with
  /// what only the shell knows (the process's start time).
  private func savedState() -> DaemonState {
    var saved: [DaemonState.SavedApp] = []
    for var adopted in policy.savedApps {
      guard let pid = adopted.pid, let app = supervisor.process(adopted.name, pid: pid) else { continue }
      // Only a kill that went out: one still waiting for its hang's stacks has not (a successor decides anew).
      if !app.killed { adopted.killInFlight = nil }
      guard let settings = policy.settings(of: adopted.name) else { continue }
      saved.append(DaemonState.SavedApp(adopted: adopted, startTime: app.startTime, settings: settings))
    }
    var state = DaemonState(bootID: DaemonState.currentBootID, apps: saved)
    if policy.deviceCharging { state.deviceCharging = true }
    let pending = supervisor.records.unwritten
    if !pending.isEmpty { state.pendingRecords = pending }
    return state
  }

  // MARK: Programs

  /// The helper program that allocates memory on request (installed beside jetsamd).
  static var helperPath: String { siblingProgram("jetsam-testapp") }

  /// The crash reporter preloaded into apps: beside jetsamd (a build directory) or in `../lib/jetsam` (installed).
  static var crashHandlerLibrary: String? {
    let bin = programDirectory
    return [bin + "/libjetsam-crash.so", directoryPart(of: bin) + "/lib/jetsam/libjetsam-crash.so"].first {
      access($0, R_OK) == 0
    }
  }

  /// The path of one of jetsam's programs, installed beside jetsamd.
  static func siblingProgram(_ name: String) -> String { programDirectory + "/" + name }

  /// The directory jetsamd runs from.
  private static var programDirectory: String {
    directoryPart(
      of: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/usr/bin/jetsamd")
  }

  // MARK: Status

  /// `5 apps: 1 foreground, 1 background, 3 suspended; pressure normal; 12 exits recorded`.
  func statusLine() -> String {
    var counts: [String: Int] = [:]
    for (state, count) in policy.appCountsByState where state.isRunning {
      counts[state.coarseName, default: 0] += count
    }
    let total = counts.values.reduce(0, +)
    let parts = ["foreground", "background", "suspended"].compactMap { state in counts[state].map { "\($0) \(state)" } }
    let apps = total == 0 ? "no apps running" : "\(total) app\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    return "\(apps); pressure \(policy.level.name); \(records.written) exit\(records.written == 1 ? "" : "s") recorded"
  }

  /// Sends STATUS= when it changed.
  private func updateStatus() { service.update(statusLine()) }

}
