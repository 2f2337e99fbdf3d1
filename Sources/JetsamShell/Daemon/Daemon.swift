import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform

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

  /// Sets up cgroups, the record log, pressure sources and the control socket; ready when it returns. Each part is
  /// made by a step of its own (Daemon+Setup.swift), in the order they depend on one another.
  public init(config: DaemonConfig, options: DaemonOptions) throws {
    let startedAt = MonotonicClock.now()
    self.config = config
    self.options = options
    log = options.logger
    let stateDirectory = options.stateDirectory(in: config)
    loop = try EventLoop()
    Daemon.raiseDescriptorLimit()
    let oomScoreFloor = Daemon.takeOwnPriority(config, log: log)
    let stateLock = try Daemon.claimStateDirectory(stateDirectory)
    records = try Daemon.recordWriter(rotation: config.records, stateDirectory: stateDirectory, loop: loop, log: log)
    let layout = try CgroupLayout.detect()
    device = try DeviceCgroup.create(layout: layout, name: config.device.cgroupName)
    locks = [stateLock, try DaemonLock.device(device.unifiedDirectory)]
    if let cpu = config.device.appsCPULimit { try device.setAppsCPULimit(percent: cpu) }
    let counter = try Daemon.memoryCounter(config.device.ram, device: device)
    let thresholds = config.device.thresholds.resolved(ram: counter.ramBytes)
    policyLoop = try PolicyLoop(
      policy: JetsamPolicy(config: Daemon.policyConfig(config, thresholds: thresholds, oomScoreFloor: oomScoreFloor)),
      scheduling: loop, log: log)
    let journal = Journal()
    announcer = PolicyAnnouncer(log: log, journal: journal)
    let (launcher, cgroupNamespaces) = Daemon.processLauncher(
      spawnerSocket: options.spawnerSocket ?? config.spawnerSocket, loop: loop, log: log)
    // Launches as a user and the control socket's peer checks ask the user databases through it, off the loop.
    let users = try ThreadUserDirectory(loop: loop)
    // Where the supervisor and its parts report what came of their work (``take(_:)``): theirs to hold, bound to
    // this daemon once it is whole.
    let inbox = DaemonInbox()
    supervisor = AppSupervisor(
      seams: try Daemon.supervisorSeams(
        config: config, options: options, loop: loop, device: device, launcher: launcher, records: records,
        users: users, policyLoop: policyLoop, journal: journal, log: log),
      inbox: inbox, log: log, suspendMode: config.suspend.mode, stateDirectory: stateDirectory)
    try equipSupervisor(cgroupNamespaces: cgroupNamespaces)
    stateKeeper = try makeStateKeeper()
    connectSupervisor(inbox: inbox)
    try recallEarlierRuns()
    pressure = try makePressureControl(layout: layout, counter: counter)
    let passed = PassedDescriptors.take()
    // One budget for the output of every client, control and metrics alike.
    let outputBudget = OutputBudget(log: log)
    control = try makeControlServer(
      users: users, budget: outputBudget, inherited: passed.controlListener, startedAt: startedAt)
    metricsOutputs = try makeMetricsOutputs(budget: outputBudget, inherited: passed.metricsListener)
    live = try makeLiveFeed()
    signals = try DaemonSignals(
      loop: loop, exitWithParent: options.exitWithParent, log: log, handlers: signalHandlers)
    takeOverPreviousRun(channels: passed.channels)
    loop.enableWatchdog()
    metricsOutputs.apply(config.metrics)
    log.notice(readyLine(layout: layout, counter: counter))
    service.ready(statusLine())
  }

  /// Runs the event loop until shutdown; returns the exit code.
  public func run() throws -> Int32 {
    try loop.run()
  }

  private func connectSupervisor(inbox: DaemonInbox) {
    announcer.isConfigured = { [unowned self] name in self.config.apps[name] != nil }
    policyLoop.owners = PolicyLoop.Owners(
      perform: { [unowned self] action in self.perform(action) },
      handled: { [unowned self] event in self.handled(event) },
      batchDone: { [unowned self] in self.supervisor.finishBatch() },
      runDone: { [unowned self] _ in if self.stateKeeper.runEnded() { self.heapTrimmer.noteActivity() } },
      turnDone: { [unowned self] changed in self.turnDone(policyMayHaveChanged: changed) },
      isStopPending: { [unowned self] name in self.supervisor.isStopPending(name) })
    inbox.bind(to: self)
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

  /// The policy loop's runs of one turn are over: the status and the requests waiting for pressure (the state file
  /// is saved at the end of each run).
  private func turnDone(policyMayHaveChanged: Bool) {
    if policyMayHaveChanged { updateStatus() }
    pressure?.waiters.recheck()
  }

  /// Tells the world about a record that is already durable.
  private func report(_ record: ExitRecord) {
    announcer.recorded(record)
    control.broadcast(record)
    live.publish(record)
  }

  /// Bytes charged to each running app's cgroup (for `watch`).
  func runningAppMemory() -> [String: Int64] {
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
  func savedState() -> DaemonState {
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
