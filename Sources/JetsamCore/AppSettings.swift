/// How an app is configured: how its process is started, and what the policy's decisions need of it (its band lift,
/// whether its acknowledgements are watched, which lifecycle events a hook answers for it).
public struct AppSettings: Sendable, Equatable, Codable {
  /// How its process is started; nil for an app taken over without its config (found running after a restart,
  /// with no state and no config naming it): it cannot be launched again until it is configured.
  public var launch: LaunchSpec?
  /// The configured band lift (e.g. `audio`), if any.
  public var bandFloor: Band?
  /// Whether the app's acknowledgements of lifecycle events are expected and watched.
  public var acknowledgements: AcknowledgementMode
  /// Lifecycle events a hook acts on for a program that does not speak the protocol.
  public var hooks: [AppEventKind: AppHook]
  /// Commands that tell whether the program is up and what state it holds, for one that does not speak the protocol.
  public var commands: AppCommands
  /// Launched by a request rather than declared in the config: once ended, it is remembered only among the
  /// ``PolicyConfig/rememberedEndedApps`` most recently ended such apps.
  public var adHoc: Bool
  /// What holding a file lock at suspension costs the app.
  public var lockedFiles: LockedFileRule
  /// The app's own CPU limits (its config's `cpuMonitor` over the daemon-wide one); nil: the daemon-wide ones.
  public var cpuLimits: CPUMonitorConfig?
  /// How much it may write within a window before a disk-write exception (already scaled by the config's time
  /// scale); nil: not watched. The config gives every app iOS's ``DiskWriteLimit/iOS`` unless it says otherwise.
  public var diskWrites: DiskWriteLimit?
  /// What becomes of its network sockets once it is suspended (by default they are kept: the daemon's config gives
  /// apps iOS's `defunct` unless it says otherwise).
  public var sockets: SocketsAtSuspension

  public init(
    launch: LaunchSpec?, bandFloor: Band? = nil, acknowledgements: AcknowledgementMode = .auto,
    hooks: [AppEventKind: AppHook] = [:], commands: AppCommands = AppCommands(), adHoc: Bool = false,
    lockedFiles: LockedFileRule = LockedFileRule(), cpuLimits: CPUMonitorConfig? = nil,
    diskWrites: DiskWriteLimit? = nil, sockets: SocketsAtSuspension = .keep
  ) {
    self.launch = launch
    self.bandFloor = bandFloor
    self.acknowledgements = acknowledgements
    self.hooks = hooks
    self.commands = commands
    self.adHoc = adHoc
    self.lockedFiles = lockedFiles
    self.cpuLimits = cpuLimits
    self.diskWrites = diskWrites
    self.sockets = sockets
  }

  private enum CodingKeys: String, CodingKey {
    case launch, bandFloor, acknowledgements, hooks, commands, adHoc, lockedFiles, sockets, cpuLimits, diskWrites
  }

  /// Settings as a state file keeps them; `sockets` and `commands` may be absent (a file written before they were
  /// kept: `keep` and none, what the app had then).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    launch = try c.decodeIfPresent(LaunchSpec.self, forKey: .launch)
    bandFloor = try c.decodeIfPresent(Band.self, forKey: .bandFloor)
    acknowledgements = try c.decode(AcknowledgementMode.self, forKey: .acknowledgements)
    hooks = try c.decode([AppEventKind: AppHook].self, forKey: .hooks)
    commands = try c.decodeIfPresent(AppCommands.self, forKey: .commands) ?? AppCommands()
    adHoc = try c.decode(Bool.self, forKey: .adHoc)
    lockedFiles = try c.decode(LockedFileRule.self, forKey: .lockedFiles)
    sockets = try c.decodeIfPresent(SocketsAtSuspension.self, forKey: .sockets) ?? .keep
    cpuLimits = try c.decodeIfPresent(CPUMonitorConfig.self, forKey: .cpuLimits)
    diskWrites = try c.decodeIfPresent(DiskWriteLimit.self, forKey: .diskWrites)
  }
}

extension PolicyEvent {
  /// `configure` with settings given one by one (the rest default; without a `launch` spec, the app's name is its
  /// command: for tests and fuzzing, where nothing is started).
  public static func configure(
    app: String, bandFloor: Band?, launchCount: Int, acknowledgements: AcknowledgementMode = .auto,
    hooks: [AppEventKind: AppHook] = [:], adHoc: Bool = false, launch: LaunchSpec? = nil
  ) -> PolicyEvent {
    .configure(
      app: app,
      settings: AppSettings(
        launch: launch ?? LaunchSpec(command: [app]), bandFloor: bandFloor, acknowledgements: acknowledgements,
        hooks: hooks, adHoc: adHoc),
      launchCount: launchCount)
  }
}
