import FoundationEssentials
import JetsamCore

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
  public var cpuMonitor = CPUMonitorSettings.standard
  /// How diagnostics (hang, CPU exception and crash call stacks) are taken and kept.
  public var diagnostics = DiagnosticsSettings()
  /// The Prometheus exposition's textfile, for node_exporter.
  public var metrics = MetricsSettings()
  /// What an app holding file locks as it is suspended gets, unless its entry says otherwise.
  public var lockedFiles = LockedFilesSettings.standard
  /// How much an app may write within a window before a disk-write exception, unless its entry says otherwise
  /// (iOS's 1 GB in 24 hours); `null`: not watched.
  public var diskWriteMonitor = DiskWriteMonitorSettings.standard
  /// What becomes of an app's network sockets at its suspension, unless its entry says otherwise.
  public var sockets = SocketsSettings.standard
  /// Multiplies every watchdog deadline, background-task time, CPU-monitor and disk-write-monitor window (0.1 runs the same rules ten
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
    case watchdog, backgroundTasks, cpuMonitor, lockedFiles, diskWriteMonitor, diagnostics, metrics, timeScale,
      debugRequests, apps
    case passEnvironment, records, appUser, sockets
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
    cpuMonitor = (try c.decodeIfPresent(CPUMonitorSettings.self, forKey: .cpuMonitor) ?? d.cpuMonitor).over(.standard)
    diagnostics = try c.decodeIfPresent(DiagnosticsSettings.self, forKey: .diagnostics) ?? d.diagnostics
    metrics = try c.decodeIfPresent(MetricsSettings.self, forKey: .metrics) ?? d.metrics
    lockedFiles = (try c.decodeIfPresent(LockedFilesSettings.self, forKey: .lockedFiles) ?? d.lockedFiles).over(
      .standard)
    diskWriteMonitor = (try DiskWriteMonitorSettings.decode(forKey: .diskWriteMonitor, in: c) ?? d.diskWriteMonitor)
      .over(.standard)
    sockets = (try c.decodeIfPresent(SocketsSettings.self, forKey: .sockets) ?? d.sockets).over(.standard)
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
      apps[name]!.cpuMonitor = apps[name]!.cpuMonitor?.over(cpuMonitor)
      apps[name]!.sockets = (apps[name]!.sockets ?? SocketsSettings()).over(sockets)
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
      if AppConfig.isDaemonVariable(name) {
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

extension DaemonConfig {
  /// `app` as the policy keeps it, with this config's default caps and app user filled in; `adHoc` unless this
  /// config declares an app called `name`.
  public func settings(of app: AppConfig, named name: String) -> AppSettings {
    var settings = app.settings(defaults: defaults, defaultUser: appUser, adHoc: apps[name] == nil)
    settings.cpuLimits = app.cpuMonitor?.policyConfig(timeScale: timeScale)
    // Merged here rather than at decoding, so that an ad-hoc app (no entry) gets the daemon-wide monitor too.
    settings.diskWrites = (app.diskWriteMonitor ?? DiskWriteMonitorSettings()).over(diskWriteMonitor).limit(
      timeScale: timeScale)
    return settings
  }

  /// A `configure` for each app this config declares, in name order (at start-up, after re-adoption, at a reload:
  /// the policy gives a running one its caps at once and the rest at its next launch).
  public var configureEvents: [PolicyEvent] {
    apps.keys.sorted().map { name in
      .configure(app: name, settings: settings(of: apps[name]!, named: name), launchCount: 0)
    }
  }
}
