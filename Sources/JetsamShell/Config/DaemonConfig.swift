import FoundationEssentials
import Glibc
import JetsamCore
import JetsamProtocol

/// The daemon's configuration: `config/jetsamd.json5` documents every key.
public struct DaemonConfig: Sendable, Codable, Equatable {
  /// The emulated device.
  public var device = DeviceConfig()
  /// How apps are suspended, and when.
  public var suspend = SuspendConfig()
  /// Caps applied to every app unless the app overrides them.
  public var defaults = AppCaps()
  /// How many apps may be in the foreground at once.
  public var foregroundSlots = 1
  /// A jetsam victim still alive this long after its SIGKILL no longer blocks the next kill.
  public var killTimeout = ConfigDuration(.seconds(2))
  /// Time from SIGTERM to SIGKILL when an app is terminated gracefully.
  public var terminateGrace = ConfigDuration(.seconds(5))
  /// Where the exit record log and the state file live.
  public var stateDirectory = "/var/lib/jetsam"
  /// Where the control socket lives.
  public var runtimeDirectory = "/run/jetsam"
  /// Members of this group may use the control socket (root always may); nil: root only.
  public var controlGroup: String? = "jetsam"
  /// The daemon's own oom_score_adj: low, so the kernel's OOM killer takes apps first.
  public var daemonOOMScoreAdj: Int32 = -900
  /// The daemon's nice value: raised above the apps', so that it stays responsive when they are busy and is not
  /// preempted by every app it wakes with a signal. Apps start at 0.
  public var daemonNice: Int32 = -5
  /// The `SCHED_FIFO` priority (1–99) of jetsamd's event loop; nil (the default): the normal scheduler at
  /// ``daemonNice``. Real time is what Android's lmkd runs at: neither busy apps nor the thousand that a batch
  /// suspend wakes can preempt a kill or a batch (1,000 apps suspend in about 40 ms instead of 60). The price:
  /// a client flooding the control socket then keeps a core busy at real-time priority (the kernel leaves others
  /// 5 % of it), which is why it is not the default. Apps, hooks and jetsamd's helper threads start on the
  /// normal scheduler (`SCHED_RESET_ON_FORK`).
  public var daemonRealtimePriority: Int32?
  /// Lifecycle-event deadlines (the watchdog).
  public var watchdog = WatchdogConfig()
  /// Background-task budget and expiry.
  public var backgroundTasks = BackgroundTaskConfig()
  /// The CPU monitor's budget per state.
  public var cpuMonitor = CPUMonitorSettings()
  /// How diagnostics (hang, CPU exception and crash call stacks) are taken and kept.
  public var diagnostics = DiagnosticsSettings()
  /// The Prometheus exposition's textfile, for node_exporter.
  public var metrics = MetricsSettings()
  /// What an app holding file locks as it is suspended gets, unless its entry says otherwise.
  public var lockedFiles = LockedFilesSettings.standard
  /// Multiplies every watchdog deadline, background-task time and CPU-monitor window (0.1 runs the same rules ten
  /// times faster).
  public var timeScale = 1.0
  /// Accept debug-only control requests (debugFreeze). Never on a production host.
  public var debugRequests = false
  /// Configured apps by name.
  public var apps: [String: AppConfig] = [:]
  /// The variables of jetsamd's own environment that every app gets, if jetsamd has them. Nothing else of it
  /// reaches an app: each starts from its user's PATH, HOME, USER and LOGNAME, then these, then its `env`.
  public var passEnvironment = ["LANG", "LANGUAGE", "LC_ALL", "TZ"]
  /// How the exit record log is rotated, and how long a stop waits for disk space.
  public var records = RecordsConfig()
  /// Whom apps run as when neither their config entry nor the request says (a member's ad-hoc app always runs as
  /// the member); nil: jetsamd's own user, root under systemd. A user of its own (e.g. `nobody`) keeps root apps
  /// from leaving their cgroup or signalling other processes.
  public var appUser: String?
  /// Whether apps are watched for their acknowledgements when neither their config entry nor the launch request
  /// says: `auto` (once the app has written a valid line: a hang before that is not watched), `always` (from
  /// launch, as iOS's watchdog), or `never`.
  public var appAcknowledgements: AcknowledgementMode = .auto
  /// The socket of the spawner service (`jetsam-spawner`) that starts and reaps apps for jetsamd, so that jetsamd
  /// can run in a tighter sandbox than they do; nil (the default): jetsamd starts them itself.
  public var spawnerSocket: String?

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable {
    case device, suspend, defaults, foregroundSlots, killTimeout, terminateGrace, stateDirectory
    case runtimeDirectory, controlGroup, daemonOOMScoreAdj, daemonNice, daemonRealtimePriority
    case watchdog, backgroundTasks, cpuMonitor, lockedFiles, diagnostics, metrics, timeScale, debugRequests, apps
    case passEnvironment, records, appUser
    case appAcknowledgements, spawnerSocket
  }

  /// The app-side timings for the policy, scaled by ``timeScale``.
  public var lifecycleTimings: LifecycleTimings {
    LifecycleTimings(
      launch: watchdog.launch.duration, foregroundTransition: watchdog.foreground.duration,
      background: watchdog.background.duration, terminate: watchdog.terminate.duration,
      backgroundTaskBudget: backgroundTasks.budget.duration,
      expirationWarning: backgroundTasks.expirationWarning.duration, expirationGrace: backgroundTasks.grace.duration
    ).scaled(by: timeScale)
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = DaemonConfig()
    device = try c.decodeIfPresent(DeviceConfig.self, forKey: .device) ?? d.device
    suspend = try c.decodeIfPresent(SuspendConfig.self, forKey: .suspend) ?? d.suspend
    defaults = try c.decodeIfPresent(AppCaps.self, forKey: .defaults) ?? d.defaults
    foregroundSlots = try c.decodeIfPresent(Int.self, forKey: .foregroundSlots) ?? d.foregroundSlots
    killTimeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .killTimeout) ?? d.killTimeout
    terminateGrace = try c.decodeIfPresent(ConfigDuration.self, forKey: .terminateGrace) ?? d.terminateGrace
    stateDirectory = try c.decodeIfPresent(String.self, forKey: .stateDirectory) ?? d.stateDirectory
    runtimeDirectory = try c.decodeIfPresent(String.self, forKey: .runtimeDirectory) ?? d.runtimeDirectory
    controlGroup =
      c.contains(.controlGroup) ? try c.decodeIfPresent(String.self, forKey: .controlGroup) : d.controlGroup
    daemonOOMScoreAdj = try c.decodeIfPresent(Int32.self, forKey: .daemonOOMScoreAdj) ?? d.daemonOOMScoreAdj
    daemonNice = try c.decodeIfPresent(Int32.self, forKey: .daemonNice) ?? d.daemonNice
    if !(-1000...1000).contains(daemonOOMScoreAdj) {
      throw DecodingError.dataCorruptedError(
        forKey: .daemonOOMScoreAdj, in: c, debugDescription: "must be from -1000 to 1000")
    }
    if !(-20...19).contains(daemonNice) {
      throw DecodingError.dataCorruptedError(forKey: .daemonNice, in: c, debugDescription: "must be from -20 to 19")
    }
    daemonRealtimePriority = try c.decodeIfPresent(Int32.self, forKey: .daemonRealtimePriority)
    if let priority = daemonRealtimePriority, !(1...99).contains(priority) {
      throw DecodingError.dataCorruptedError(
        forKey: .daemonRealtimePriority, in: c,
        debugDescription: "must be from 1 to 99, or null for the normal scheduler")
    }
    watchdog = try c.decodeIfPresent(WatchdogConfig.self, forKey: .watchdog) ?? d.watchdog
    backgroundTasks = try c.decodeIfPresent(BackgroundTaskConfig.self, forKey: .backgroundTasks) ?? d.backgroundTasks
    cpuMonitor = try c.decodeIfPresent(CPUMonitorSettings.self, forKey: .cpuMonitor) ?? d.cpuMonitor
    diagnostics = try c.decodeIfPresent(DiagnosticsSettings.self, forKey: .diagnostics) ?? d.diagnostics
    metrics = try c.decodeIfPresent(MetricsSettings.self, forKey: .metrics) ?? d.metrics
    lockedFiles = (try c.decodeIfPresent(LockedFilesSettings.self, forKey: .lockedFiles) ?? d.lockedFiles).over(
      .standard)
    timeScale = try c.decodeIfPresent(Double.self, forKey: .timeScale) ?? d.timeScale
    debugRequests = try c.decodeIfPresent(Bool.self, forKey: .debugRequests) ?? false
    if let text = try c.decodeIfPresent(String.self, forKey: .appAcknowledgements) {
      appAcknowledgements = try AcknowledgementMode(text, forKey: .appAcknowledgements, in: c)
    }
    apps = try c.decodeIfPresent([String: AppConfig].self, forKey: .apps) ?? [:]
    for name in apps.keys where apps[name]!.acknowledgements == nil {
      apps[name]!.acknowledgements = appAcknowledgements
    }
    for name in apps.keys {
      apps[name]!.lockedFiles = (apps[name]!.lockedFiles ?? LockedFilesSettings()).over(lockedFiles)
    }
    passEnvironment = try c.decodeIfPresent([String].self, forKey: .passEnvironment) ?? d.passEnvironment
    records = try c.decodeIfPresent(RecordsConfig.self, forKey: .records) ?? d.records
    spawnerSocket = try c.decodeIfPresent(String.self, forKey: .spawnerSocket)
    if let path = spawnerSocket, !path.hasPrefix("/") || path.utf8.count >= 108 {
      throw DecodingError.dataCorruptedError(
        forKey: .spawnerSocket, in: c, debugDescription: "must be an absolute path under 108 bytes")
    }
    appUser = try c.decodeIfPresent(String.self, forKey: .appUser)
    if let appUser, appUser.isEmpty || appUser.contains(where: { ":/\0\n".contains($0) }) {
      throw DecodingError.dataCorruptedError(
        forKey: .appUser, in: c, debugDescription: "\"\(appUser)\" is not a user name")
    }
    for name in passEnvironment {
      if !AppConfig.isVariableName(name) {
        throw DecodingError.dataCorruptedError(
          forKey: .passEnvironment, in: c, debugDescription: AppConfig.variableNameRule)
      }
      if AppProtocolCodec.isDaemonVariable(name) {
        throw DecodingError.dataCorruptedError(
          forKey: .passEnvironment, in: c, debugDescription: "\(name) describes jetsamd, not its apps")
      }
    }
    if !(timeScale > 0 && timeScale <= 100) {
      throw DecodingError.dataCorruptedError(
        forKey: .timeScale, in: c, debugDescription: "must be above 0 and at most 100")
    }
    if foregroundSlots < 1 {
      throw DecodingError.dataCorruptedError(
        forKey: .foregroundSlots, in: c, debugDescription: "must be at least 1")
    }
  }
}

/// How long each lifecycle event's handler may take before the watchdog kills the app (iOS defaults).
public struct WatchdogConfig: Sendable, Codable, Equatable {
  public var launch = ConfigDuration(.seconds(20))
  public var foreground = ConfigDuration(.seconds(10))
  public var background = ConfigDuration(.seconds(5))
  public var terminate = ConfigDuration(.seconds(5))
  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case launch, foreground, background, terminate }
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = WatchdogConfig()
    launch = try c.decodeIfPresent(ConfigDuration.self, forKey: .launch) ?? d.launch
    foreground = try c.decodeIfPresent(ConfigDuration.self, forKey: .foreground) ?? d.foreground
    background = try c.decodeIfPresent(ConfigDuration.self, forKey: .background) ?? d.background
    terminate = try c.decodeIfPresent(ConfigDuration.self, forKey: .terminate) ?? d.terminate
  }
}

/// Background time for apps that hold background tasks.
public struct BackgroundTaskConfig: Sendable, Codable, Equatable {
  /// From entering the background.
  public var budget = ConfigDuration(.seconds(30))
  /// backgroundTaskWillExpire goes out this long before the budget runs out.
  public var expirationWarning = ConfigDuration(.seconds(5))
  /// Tasks still open this long after the budget ran out are killed.
  public var grace = ConfigDuration(.seconds(1))
  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case budget, expirationWarning, grace }
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = BackgroundTaskConfig()
    budget = try c.decodeIfPresent(ConfigDuration.self, forKey: .budget) ?? d.budget
    expirationWarning = try c.decodeIfPresent(ConfigDuration.self, forKey: .expirationWarning) ?? d.expirationWarning
    grace = try c.decodeIfPresent(ConfigDuration.self, forKey: .grace) ?? d.grace
    if expirationWarning.duration > budget.duration {
      throw DecodingError.dataCorruptedError(
        forKey: .expirationWarning, in: c, debugDescription: "must not be longer than the budget")
    }
  }
}

/// The emulated device: its RAM and where its pressure levels start.
public struct DeviceConfig: Sendable, Codable, Equatable {
  /// The device's RAM, or `host` to make the device the whole machine (MemAvailable).
  public var ram: RAMSetting = .bytes(2 << 30)
  /// The device cgroup's name, created under the daemon's own cgroup.
  public var cgroupName = "jetsam-device"
  /// Per-level thresholds of memory available to the device.
  public var thresholds = ThresholdConfig()
  /// A CPU cap for all apps together (percent of one core), so that busy apps never starve the daemon.
  public var appsCPULimit: Double? = nil

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable { case ram, cgroupName, thresholds, appsCPULimit }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = DeviceConfig()
    ram = try c.decodeIfPresent(RAMSetting.self, forKey: .ram) ?? d.ram
    cgroupName = try c.decodeIfPresent(String.self, forKey: .cgroupName) ?? d.cgroupName
    thresholds = try c.decodeIfPresent(ThresholdConfig.self, forKey: .thresholds) ?? d.thresholds
    appsCPULimit = try c.decodeIfPresent(Double.self, forKey: .appsCPULimit)
    if let limit = appsCPULimit, !AppCaps.cpuPercents.contains(limit) {
      throw DecodingError.dataCorruptedError(
        forKey: .appsCPULimit, in: c, debugDescription: "\(limit) is not a CPU cap (1 to 100000 percent of a core)")
    }
    if cgroupName.isEmpty || cgroupName.contains("/") || cgroupName.hasPrefix(".") {
      throw DecodingError.dataCorruptedError(
        forKey: .cgroupName, in: c, debugDescription: "\"\(cgroupName)\" is not a plain cgroup name")
    }
  }
}

/// The device's RAM: a size, or the whole host.
public enum RAMSetting: Sendable, Codable, Equatable {
  case bytes(Int64)
  case host

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if (try? container.decode(String.self)) == "host" {
      self = .host
    } else {
      self = .bytes(try ByteSize(from: decoder).bytes)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .host: try container.encode("host")
    case .bytes(let b): try container.encode(b)
    }
  }
}

/// Thresholds per level, each as bytes or a percentage of RAM available.
public struct ThresholdConfig: Sendable, Codable, Equatable {
  public struct Bounds: Sendable, Codable, Equatable {
    public var enter: MemoryAmount
    public var clear: MemoryAmount
    enum CodingKeys: String, CodingKey, CaseIterable { case enter, clear }
    public init(enter: MemoryAmount, clear: MemoryAmount) {
      self.enter = enter
      self.clear = clear
    }
    public init(from decoder: any Decoder) throws {
      try decoder.rejectUnknownKeys(CodingKeys.self)
      let c = try decoder.container(keyedBy: CodingKeys.self)
      enter = try c.decode(MemoryAmount.self, forKey: .enter)
      clear = try c.decode(MemoryAmount.self, forKey: .clear)
    }
  }

  public var warning = Bounds(enter: .percentOfRAM(25), clear: .percentOfRAM(30))
  public var urgent = Bounds(enter: .percentOfRAM(15), clear: .percentOfRAM(20))
  public var critical = Bounds(enter: .percentOfRAM(5), clear: .percentOfRAM(10))

  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case warning, urgent, critical }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = ThresholdConfig()
    warning = try c.decodeIfPresent(Bounds.self, forKey: .warning) ?? d.warning
    urgent = try c.decodeIfPresent(Bounds.self, forKey: .urgent) ?? d.urgent
    critical = try c.decodeIfPresent(Bounds.self, forKey: .critical) ?? d.critical
  }

  /// The thresholds in bytes for a device with `ram` bytes.
  public func resolved(ram: Int64) -> PressureThresholds {
    func bounds(_ b: Bounds) -> PressureThresholds.Bounds {
      .init(enter: b.enter.bytes(ofRAM: ram), clear: b.clear.bytes(ofRAM: ram))
    }
    return PressureThresholds(warning: bounds(warning), urgent: bounds(urgent), critical: bounds(critical))
  }
}

/// How apps are suspended.
public struct SuspendConfig: Sendable, Codable, Equatable {
  public enum Mode: String, Sendable, Codable, Equatable {
    /// SIGSTOP to every process of the app's cgroup (state `T`); SIGCONT to resume.
    case signal
    /// The cgroup v2 freezer (`cgroup.freeze`; state `S`), also on the hybrid layout's unified hierarchy.
    case freezer
  }
  public var mode: Mode = .signal
  /// A background app is suspended after this long; null: only on request.
  public var backgroundGrace: ConfigDuration? = ConfigDuration(.seconds(10))
  /// How long an app's processes may take to stop; past it the app counts as suspended, marked incomplete.
  public var timeout = ConfigDuration(.seconds(1))
  /// iOS's escalation: a running background app jetsam picks at urgent is suspended first (its background tasks
  /// warned and ended), then killed as a suspended app; false: killed while it runs.
  public var beforeJetsamKill = true

  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case mode, backgroundGrace, timeout, beforeJetsamKill }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = SuspendConfig()
    if let text = try c.decodeIfPresent(String.self, forKey: .mode) {
      guard let parsed = Mode(rawValue: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .mode, in: c, debugDescription: "\"\(text)\" is not a suspend mode (signal, freezer)")
      }
      mode = parsed
    }
    backgroundGrace =
      c.contains(.backgroundGrace)
      ? try c.decodeIfPresent(ConfigDuration.self, forKey: .backgroundGrace) : d.backgroundGrace
    timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? d.timeout
    beforeJetsamKill = try c.decodeIfPresent(Bool.self, forKey: .beforeJetsamKill) ?? d.beforeJetsamKill
  }
}

/// Resource caps of an app (each nil: unlimited).
public struct AppCaps: Sendable, Codable, Equatable {
  /// Hard memory cap: the kernel OOM-kills the app past it (recorded as memoryResourceLimit).
  public var memoryLimit: ByteSize? = nil
  /// CPU quota in percent of one core (150 = one and a half cores).
  public var cpuLimit: Double? = nil
  /// Most processes and threads the app may have (a fork bomb stays inside).
  public var pidsLimit: Int? = 512

  public init(memoryLimit: ByteSize? = nil, cpuLimit: Double? = nil, pidsLimit: Int? = 512) {
    self.memoryLimit = memoryLimit
    self.cpuLimit = cpuLimit
    self.pidsLimit = pidsLimit
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case memoryLimit, cpuLimit, pidsLimit }

  /// CPU caps the kernel's `cpu.max` takes as jetsam writes it, in percent of one core.
  public static let cpuPercents: ClosedRange<Double> = 1...100_000

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self = try AppCaps.decode(from: c, memory: .memoryLimit, cpu: .cpuLimit, pids: .pidsLimit)
  }

  /// Reads and checks the three cap keys from any table that holds them (`defaults`, or an app's own table).
  static func decode<Key: CodingKey>(from c: KeyedDecodingContainer<Key>, memory: Key, cpu: Key, pids: Key) throws
    -> AppCaps
  {
    let caps = AppCaps(
      memoryLimit: try c.decodeIfPresent(ByteSize.self, forKey: memory),
      cpuLimit: try c.decodeIfPresent(Double.self, forKey: cpu),
      pidsLimit: try c.decodeIfPresent(Int.self, forKey: pids))
    if let limit = caps.cpuLimit, !AppCaps.cpuPercents.contains(limit) {
      throw DecodingError.dataCorruptedError(
        forKey: cpu, in: c, debugDescription: "\(limit) is not a CPU cap (1 to 100000 percent of a core)")
    }
    // The kernel's own ceiling on pids (PID_MAX_LIMIT).
    if let limit = caps.pidsLimit, !(1...4_194_304).contains(limit) {
      throw DecodingError.dataCorruptedError(forKey: pids, in: c, debugDescription: "must be from 1 to 4194304")
    }
    return caps
  }

  /// These caps with every cap `other` sets taking precedence.
  public func overridden(by other: AppCaps?) -> AppCaps {
    guard let other else { return self }
    return AppCaps(
      memoryLimit: other.memoryLimit ?? memoryLimit, cpuLimit: other.cpuLimit ?? cpuLimit,
      pidsLimit: other.pidsLimit ?? pidsLimit)
  }
}

/// One configured app.
public struct AppConfig: Sendable, Codable, Equatable {
  /// The program and its arguments.
  public var command: [String]
  /// Extra environment variables.
  public var env: [String: String] = [:]
  /// Working directory (default: `apps/NAME` in the state directory for an app of jetsamd's user, else the user's home).
  public var workingDirectory: String? = nil
  /// Run as this user (name); default: the daemon's user.
  public var user: String? = nil
  /// The app's band floor, e.g. `audio` for an app that must survive background kills.
  public var band: Band? = nil
  /// Caps overriding the defaults.
  public var caps: AppCaps? = nil
  /// Whether acknowledgements of lifecycle events are expected; nil: the config's `appAcknowledgements`.
  public var acknowledgements: AcknowledgementMode? = nil
  /// Lifecycle events mapped to a signal or a command, for programs that do not speak the protocol.
  public var hooks: [AppEventKind: LifecycleHook] = [:]
  /// What holding file locks at suspension costs it, over the config's `lockedFiles`.
  public var lockedFiles: LockedFilesSettings? = nil

  public init(command: [String]) { self.command = command }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case command, env, workingDirectory, user, band, memoryLimit, cpuLimit, pidsLimit, acknowledgements, hooks
    case lockedFiles
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    command = try c.decode([String].self, forKey: .command)
    env = try c.decodeIfPresent([String: String].self, forKey: .env) ?? [:]
    if let problem = AppConfig.problemKeys(command: command, env: env) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: c.codingPath + problem.keys, debugDescription: problem.reason))
    }
    workingDirectory = try c.decodeIfPresent(String.self, forKey: .workingDirectory)
    user = try c.decodeIfPresent(String.self, forKey: .user)
    band = try c.decodeIfPresent(Band.self, forKey: .band)
    if let text = try c.decodeIfPresent(String.self, forKey: .acknowledgements) {
      acknowledgements = try AcknowledgementMode(text, forKey: .acknowledgements, in: c)
    }
    if c.contains(.hooks) {
      let raw = try c.decode([String: LifecycleHook].self, forKey: .hooks)
      for (event, hook) in raw {
        guard let kind = AppEventKind(rawValue: event) else {
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: c.codingPath + [CodingKeys.hooks, AnyCodingKey(stringValue: event)],
              debugDescription:
                "unknown lifecycle event (known: \(AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        hooks[kind] = hook
      }
    }
    if c.contains(.memoryLimit) || c.contains(.cpuLimit) || c.contains(.pidsLimit) {
      caps = try AppCaps.decode(from: c, memory: .memoryLimit, cpu: .cpuLimit, pids: .pidsLimit)
    }
    lockedFiles = try c.decodeIfPresent(LockedFilesSettings.self, forKey: .lockedFiles)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(command, forKey: .command)
    try c.encode(env, forKey: .env)
    try c.encodeIfPresent(workingDirectory, forKey: .workingDirectory)
    try c.encodeIfPresent(user, forKey: .user)
    try c.encodeIfPresent(band, forKey: .band)
    try c.encodeIfPresent(caps?.memoryLimit, forKey: .memoryLimit)
    try c.encodeIfPresent(caps?.cpuLimit, forKey: .cpuLimit)
    try c.encodeIfPresent(caps?.pidsLimit, forKey: .pidsLimit)
    try c.encodeIfPresent(acknowledgements?.rawValue, forKey: .acknowledgements)
    if !hooks.isEmpty {
      try c.encode(Dictionary(uniqueKeysWithValues: hooks.map { ($0.key.rawValue, $0.value) }), forKey: .hooks)
    }
    try c.encodeIfPresent(lockedFiles, forKey: .lockedFiles)
  }
}

extension AppConfig {
  /// What an environment variable's name must be.
  public static let variableNameRule = "a variable name must be non-empty, without '=' or NUL"

  /// Whether `name` can name an environment variable (`NAME=value` in a process's environment).
  public static func isVariableName(_ name: String) -> Bool {
    !name.isEmpty && !name.contains("=") && !name.utf8.contains(0)
  }

  /// What is wrong with a command line and environment that execve could not take, naming the key; nil when
  /// nothing is. (NUL ends a C string: `"/bin/sleep\0x"` would run something else than was asked.)
  public static func problem(command: [String], env: [String: String]) -> (key: String, reason: String)? {
    problemKeys(command: command, env: env).map { (ConfigKeyPath.string($0.keys), $0.reason) }
  }

  /// ``problem(command:env:)`` with the key path as coding keys, for a decoding error.
  static func problemKeys(command: [String], env: [String: String]) -> (keys: [AnyCodingKey], reason: String)? {
    let commandKey = AnyCodingKey(stringValue: "command")
    let envKey = AnyCodingKey(stringValue: "env")
    if command.isEmpty || command[0].isEmpty { return ([commandKey], "must name a program") }
    if let index = command.firstIndex(where: { $0.utf8.contains(0) }) {
      return ([commandKey, AnyCodingKey(intValue: index)!], "must not contain a NUL byte")
    }
    for key in env.keys.sorted() {
      if !isVariableName(key) { return ([envKey, AnyCodingKey(stringValue: key)], variableNameRule) }
      if env[key]!.utf8.contains(0) {
        return ([envKey, AnyCodingKey(stringValue: key)], "must not contain a NUL byte")
      }
    }
    return nil
  }

  /// What the policy needs to know of the app: its band lift, acknowledgement mode and hooked events.
  public var policySettings: AppSettings {
    AppSettings(
      bandFloor: band, acknowledgements: acknowledgements ?? .auto,
      hooks: hooks.mapValues { hook in
        if let signal = hook.signal { .signal(signal) } else { .command(timeout: hook.timeout?.duration) }
      }, lockedFiles: (lockedFiles ?? LockedFilesSettings()).rule)
  }
}

/// What to do for a program that cannot answer a lifecycle event itself.
public struct LifecycleHook: Sendable, Codable, Equatable {
  /// Run this command inside the app's cgroup; its exit acknowledges the event.
  public var command: [String]?
  /// Or send this signal (e.g. `SIGUSR1`) to the app's processes, fire-and-forget.
  public var signal: Signal?
  /// The command's deadline (default: the event's watchdog deadline).
  public var timeout: ConfigDuration?

  enum CodingKeys: String, CodingKey, CaseIterable { case command, signal, timeout }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    command = try c.decodeIfPresent([String].self, forKey: .command)
    timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout)
    if let name = try c.decodeIfPresent(String.self, forKey: .signal) {
      guard let named = Signal(name: name), LifecycleHook.signals.contains(named) else {
        throw DecodingError.dataCorruptedError(
          forKey: .signal, in: c,
          debugDescription:
            "\"\(name)\" is not a signal a hook may send (\(LifecycleHook.signals.map(\.description).joined(separator: ", ")))"
        )
      }
      signal = named
    }
    if (command == nil) == (signal == nil) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: c.codingPath, debugDescription: "give exactly one of command or signal"))
    }
    if command?.isEmpty == true {
      throw DecodingError.dataCorruptedError(forKey: .command, in: c, debugDescription: "must not be empty")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(command, forKey: .command)
    try c.encodeIfPresent(signal?.description, forKey: .signal)
    try c.encodeIfPresent(timeout, forKey: .timeout)
  }

  /// The signals a hook may send: those an app can catch to do something (never SIGKILL or SIGSTOP).
  static let signals: [Signal] = [
    .hangup, .interrupt, .quit, .user1, .user2, .terminate, .resume, .windowChange,
  ]
}

extension AcknowledgementMode {
  /// The mode `text` names, or a config error at `key` that lists the modes.
  init<Key: CodingKey>(_ text: String, forKey key: Key, in container: KeyedDecodingContainer<Key>) throws {
    guard let mode = AcknowledgementMode(rawValue: text) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "\"\(text)\" is not one of auto, always, never")
    }
    self = mode
  }
}
