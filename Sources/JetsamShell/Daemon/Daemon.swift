import Foundation
import Glibc
import JetsamCore
import JetsamProtocol

/// Command-line choices that override the config file.
public struct DaemonOptions: Sendable {
  /// Where the config came from, so that SIGHUP can read it again.
  public var configPath: String?
  public var profilePath: String?
  public var socketPath: String?
  public var stateDirectory: String?
  public var logger = Logger()
  public init() {}
}

/// jetsamd: one event loop that owns the policy, feeds it kernel events, and carries out its actions.
///
/// The policy (JetsamCore) decides; this class only does: cgroups, processes, signals, the record log, the
/// control socket. Every handler runs on the loop's thread, so nothing here needs a lock.
public final class Daemon {
  public static let version = "0.1.0"

  var config: DaemonConfig
  let options: DaemonOptions
  let serviceManager = ServiceManager()
  let journal = Journal()
  /// The last STATUS= line sent, so that it is sent only when it changes.
  var lastStatusLine = ""
  let log: Logger
  let loop: EventLoop
  var policy: JetsamPolicy
  let layout: CgroupLayout
  let device: DeviceCgroup
  let records: ExitRecordLog
  let stateDirectory: String
  let socketPath: String
  let startedAt = MonotonicClock.now()
  var thresholds: PressureThresholds
  var monitor: PressureMonitor!
  var control: ControlServer!
  var deadlineTimer: EventSource!
  var signalSources: [EventSource] = []

  /// Running apps by name.
  var processes: [String: AppProcess] = [:]
  /// The effective config of each app's current or last launch (configured apps merged with launch options).
  var launchSpecs: [String: AppConfig] = [:]
  /// Records that could not be written yet (disk full…): retried before every later write, never dropped.
  var unwrittenRecords: [ExitRecord] = []
  /// The last band applied to each app's processes' oom_score_adj.
  var appliedBands: [String: Band] = [:]
  /// The lowest oom_score_adj this daemon may give a process (its own, unless it has CAP_SYS_RESOURCE).
  let oomScoreFloor: Int32
  /// Each app's last exit record (from the log at start-up, then as they are written): launch reasons.
  var lastExits: [String: ExitRecord] = [:]
  /// Set when something the state file holds changed; the file is rewritten shortly after.
  var stateDirty = false
  /// Coalesces state-file writes: a burst of requests (200 suspends) costs one write, not 200.
  var stateTimer: EventSource?
  var stateSavePending = false
  /// Set when an app's process started or ended: the state file is then rewritten right away.
  var processSetChanged = false
  /// App channels systemd kept in its descriptor store across a restart, by app, until re-adoption claims them.
  var storedChannels: [String: FileDescriptor] = [:]
  /// The memory balloon of `pressure allocate`.
  var balloon: Balloon?

  /// Apps whose band changed, waiting for their processes' oom_score_adj to follow (see `applyScores`).
  var pendingScoreUpdates: Set<String> = []
  var scoreTimer: EventSource?
  /// Apps told to stop by the actions being performed, waiting to be seen stopped.
  var pendingStops: [String] = []

  private var queue: [PolicyEvent] = []
  private var draining = false
  var shuttingDown = false

  /// Sets up cgroups, the record log, pressure sources and the control socket; ready when it returns.
  public init(config: DaemonConfig, options: DaemonOptions) throws {
    self.config = config
    self.options = options
    log = options.logger
    stateDirectory = options.stateDirectory ?? config.stateDirectory
    socketPath = options.socketPath ?? config.runtimeDirectory + "/jetsamd.sock"
    loop = try EventLoop()
    Daemon.raiseDescriptorLimit()

    // The daemon must never be what dies under pressure. Lowering oom_score_adj needs CAP_SYS_RESOURCE; without
    // it nothing can go below the value we inherited, so that value is also the floor for the apps' scores.
    try? writeTextFile("/proc/self/oom_score_adj", String(config.daemonOOMScoreAdj))
    oomScoreFloor = (try? JetsamShell.oomScoreAdj(pid: getpid())) ?? 0
    if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, config.daemonNice) != 0 {
      log.warning("could not set own nice value to \(config.daemonNice) (\(SystemError.current("setpriority")))")
    }
    if oomScoreFloor > config.daemonOOMScoreAdj {
      log.warning(
        "could not lower own oom_score_adj to \(config.daemonOOMScoreAdj) (no CAP_SYS_RESOURCE); it stays \(oomScoreFloor)"
      )
    }

    try FileManager.default.createDirectory(atPath: stateDirectory + "/logs", withIntermediateDirectories: true)
    records = try ExitRecordLog(path: stateDirectory + "/exits.jsonl")
    for record in try ExitRecordLog.read(path: records.path).records { lastExits[record.app] = record }

    layout = try CgroupLayout.detect()
    device = try DeviceCgroup.create(layout: layout, name: config.device.cgroupName)
    if let cpu = config.device.appsCPULimit { try device.setAppsCPULimit(percent: cpu) }

    let counter: MemoryCounter
    switch config.device.ram {
    case .host: counter = try .host()
    case .bytes(let ram): counter = .device(ram: ram, usage: { [device] in try device.memoryUsage() })
    }
    thresholds = config.device.thresholds.resolved(ram: counter.ramBytes)
    policy = JetsamPolicy(config: Daemon.policyConfig(config, thresholds: thresholds))
    for (name, app) in config.apps.sorted(by: { $0.key < $1.key }) {
      _ = try? policy.handle(.configure(app: name, bandFloor: app.band, launchCount: lastExits[name]?.launch ?? 0))
    }

    deadlineTimer = try loop.timer(at: nil) { [unowned self] in self.dispatch(.tick(at: MonotonicClock.now())) }
    monitor = try makePressureMonitor(counter: counter, pressureFDs: openPressureTriggers())
    // What systemd passed: the control socket (jetsamd.socket) and, after a restart, the apps' channels from
    // its descriptor store.
    var listener: FileDescriptor?
    for passed in ServiceManager.takePassedDescriptors() {
      if listener == nil && ControlServer.isListeningSocket(passed.fd) {
        listener = FileDescriptor(rawValue: passed.fd)
      } else if passed.name.hasPrefix(Daemon.channelStorePrefix) {
        storedChannels[String(passed.name.dropFirst(Daemon.channelStorePrefix.count))] = FileDescriptor(
          rawValue: passed.fd)
      } else {
        Glibc.close(passed.fd)
      }
    }
    control = try ControlServer(
      loop: loop, path: socketPath, allowedGroup: config.controlGroup, log: log, inherited: listener,
      handler: { [unowned self] request, connection in self.handle(request, from: connection) })

    for signal in [SIGTERM, SIGINT] {
      signalSources.append(try loop.onSignal(signal) { [unowned self] in self.beginShutdown() })
    }
    signalSources.append(try loop.onSignal(SIGHUP) { [unowned self] in self.reload() })
    let adopted = adoptSurvivors()
    if adopted > 0 { log.notice("re-adopted \(adopted) app(s) left running by the previous jetsamd") }
    for (name, fd) in storedChannels {
      // The app is gone: its channel has nothing more to say.
      fd.close()
      serviceManager.removeStoredDescriptor(name: Daemon.channelStorePrefix + name)
    }
    storedChannels = [:]
    loop.enableWatchdog()
    log.notice(
      "ready: cgroups \(layout.modeName) (device \(device.displayPath)), suspend \(config.suspend.mode.rawValue), "
        + "RAM \(ByteSize.format(counter.ramBytes)), socket \(socketPath), records \(records.path)")
    lastStatusLine = statusLine()
    serviceManager.ready(status: lastStatusLine)
  }

  func makePressureMonitor(counter: MemoryCounter, pressureFDs: [FileDescriptor]) throws -> PressureMonitor {
    try PressureMonitor(
      loop: loop, counter: counter, thresholds: thresholds,
      thresholdFDs: layout.supportsUsageThresholds
        ? { [device] (usage: Int64) throws(SystemError) in try device.usageThresholdEventFD(bytes: usage) } : nil,
      pressureFDs: pressureFDs,
      onSample: { [unowned self] available, at in self.dispatch(.memorySampled(available: available, at: at)) },
      onError: { [unowned self] error in self.log.error("reading memory: \(error)") })
  }

  /// PSI as an extra signal: stalls wake the monitor for an immediate reading. A 2 s window is the shortest
  /// the kernel accepts without CAP_SYS_RESOURCE.
  func openPressureTriggers() -> [FileDescriptor] {
    var triggers: [FileDescriptor] = []
    var files = [device.unifiedDirectory + "/memory.pressure"]
    if case .host = config.device.ram { files.append("/proc/pressure/memory") }
    for file in files {
      do {
        triggers.append(
          try CgroupNotifications.pressureTrigger(file: file, stallMicroseconds: 150_000, windowMicroseconds: 2_000_000)
        )
      } catch {
        log.warning("no PSI trigger (\(error)); relying on the other pressure sources")
      }
    }
    return triggers
  }

  /// `5 apps: 1 foreground, 1 background, 3 suspended; pressure normal; 12 exits recorded`.
  func statusLine() -> String {
    var counts: [String: Int] = [:]
    for app in policy.apps where app.state.isRunning { counts[app.state.coarseName, default: 0] += 1 }
    let total = counts.values.reduce(0, +)
    let parts = ["foreground", "background", "suspended"].compactMap { state in counts[state].map { "\($0) \(state)" } }
    let apps = total == 0 ? "no apps running" : "\(total) app\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    return "\(apps); pressure \(policy.level.name); \(records.written) exit\(records.written == 1 ? "" : "s") recorded"
  }

  /// Sends STATUS= when it changed.
  func updateStatus() {
    let line = statusLine()
    guard line != lastStatusLine else { return }
    lastStatusLine = line
    serviceManager.status(line)
  }

  /// Runs the event loop until shutdown; returns the exit code.
  public func run() throws -> Int32 {
    try loop.run()
  }

  /// Each app holds about ten descriptors (pidfd, cgroup counters, events): lift the soft limit to the hard one
  /// so that hundreds of apps fit.
  static func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  static func policyConfig(_ config: DaemonConfig, thresholds: PressureThresholds) -> PolicyConfig {
    PolicyConfig(
      thresholds: thresholds, foregroundSlots: config.foregroundSlots,
      backgroundGrace: config.suspend.backgroundGrace?.duration, killTimeout: config.killTimeout.duration,
      terminateGrace: config.terminateGrace.duration, lifecycle: config.lifecycleTimings)
  }

  // MARK: Events into the policy

  /// Feeds an observation or result to the policy and carries out what it decides; events raised while
  /// carrying out actions are queued and handled in order, never recursively.
  func dispatch(_ event: PolicyEvent) {
    queue.append(event)
    drain()
  }

  /// Feeds a user request to the policy: a refusal comes back as an error and changes nothing.
  func request(_ event: PolicyEvent) throws(PolicyError) {
    try requestAll([event])
  }

  /// Feeds several requests at once, all or nothing: if the policy refuses one, none is applied. Their
  /// actions are carried out together (suspending 200 apps waits once for all of them to stop).
  func requestAll(_ events: [PolicyEvent]) throws(PolicyError) {
    var trial = policy
    var actions: [PolicyAction] = []
    for event in events { actions += try trial.handle(event) }
    policy = trial
    perform(actions)
    drain()
  }

  private func drain() {
    guard !draining else { return }
    draining = true
    defer { draining = false }
    while !queue.isEmpty {
      let event = queue.removeFirst()
      do {
        perform(try policy.handle(event))
      } catch {
        log.warning("policy refused \(event): \(error)")
      }
    }
    deadlineTimer.schedule(at: policy.nextDeadline)
    updateStatus()
    scheduleStateSave()
  }

  func enqueue(_ event: PolicyEvent) {
    queue.append(event)
  }
}
