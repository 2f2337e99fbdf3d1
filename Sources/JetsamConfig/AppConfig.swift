import FoundationEssentials
import JetsamCore

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
  /// `hooks.ready` and `hooks.digest`: whether the program is up, and a digest of the state it holds.
  public var ready: CommandHook? = nil
  public var digest: CommandHook? = nil
  /// What holding file locks at suspension costs it, over the config's `lockedFiles`.
  public var lockedFiles: LockedFilesSettings? = nil
  /// Its CPU limits, over the config's `cpuMonitor`; nil: the daemon-wide ones.
  public var cpuMonitor: CPUMonitorSettings? = nil
  /// How much it may write within a window, over the config's `diskWriteMonitor` (``DiskWriteMonitorSettings/disabled``
  /// for `null`: not watched).
  public var diskWriteMonitor: DiskWriteMonitorSettings? = nil
  /// What becomes of its network sockets at suspension, over the config's `sockets`.
  public var sockets: SocketsSettings? = nil

  public init(command: [String]) { self.command = command }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case command, env, workingDirectory, user, band, memoryLimit, cpuLimit, pidsLimit, acknowledgements, hooks
    case lockedFiles, cpuMonitor, diskWriteMonitor, sockets
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
    if c.contains(.hooks) { try decodeHooks(c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .hooks)) }
    if c.contains(.memoryLimit) || c.contains(.cpuLimit) || c.contains(.pidsLimit) {
      caps = try AppCaps.decode(from: c, memory: .memoryLimit, cpu: .cpuLimit, pids: .pidsLimit)
    }
    lockedFiles = try c.decodeIfPresent(LockedFilesSettings.self, forKey: .lockedFiles)
    cpuMonitor = try c.decodeIfPresent(CPUMonitorSettings.self, forKey: .cpuMonitor)
    diskWriteMonitor = try DiskWriteMonitorSettings.decode(forKey: .diskWriteMonitor, in: c)
    sockets = try c.decodeIfPresent(SocketsSettings.self, forKey: .sockets)
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
    if !hooks.isEmpty || ready != nil || digest != nil {
      var nested = c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .hooks)
      for (kind, hook) in hooks { try nested.encode(hook, forKey: AnyCodingKey(stringValue: kind.rawValue)) }
      try nested.encodeIfPresent(ready, forKey: AnyCodingKey(stringValue: AppConfig.readyHook))
      try nested.encodeIfPresent(digest, forKey: AnyCodingKey(stringValue: AppConfig.digestHook))
    }
    try c.encodeIfPresent(lockedFiles, forKey: .lockedFiles)
    try c.encodeIfPresent(cpuMonitor, forKey: .cpuMonitor)
    try c.encodeIfPresent(diskWriteMonitor, forKey: .diskWriteMonitor)
    try c.encodeIfPresent(sockets, forKey: .sockets)
  }
}

extension AppConfig {
  /// The keys of `hooks` that are not lifecycle events: the commands that speak for a program.
  public static let readyHook = "ready"
  public static let digestHook = "digest"

  /// `hooks`: a lifecycle event's hook (a command or a signal), or `ready` or `digest` (a command).
  private mutating func decodeHooks(_ c: KeyedDecodingContainer<AnyCodingKey>) throws {
    for key in c.allKeys {
      switch key.stringValue {
      case AppConfig.readyHook:
        ready = try c.decode(CommandHook.self, forKey: key)
        if ready?.validFor != nil {
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: c.codingPath + [key, CommandHook.CodingKeys.validFor],
              debugDescription: "only the digest hook has a validity"))
        }
      case AppConfig.digestHook:
        digest = try c.decode(CommandHook.self, forKey: key)
      default:
        guard let kind = AppEventKind(rawValue: key.stringValue) else {
          let known = AppEventKind.allCases.map(\.rawValue) + [AppConfig.readyHook, AppConfig.digestHook]
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: c.codingPath + [key],
              debugDescription: "unknown lifecycle event or command (known: \(known.joined(separator: ", ")))"))
        }
        hooks[kind] = try c.decode(LifecycleHook.self, forKey: key)
      }
    }
    // The restored digest is taken once ready says the relaunched program is up: without it there is none.
    if digest != nil && ready == nil {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: c.codingPath + [AnyCodingKey(stringValue: AppConfig.digestHook)],
          debugDescription: "needs a ready hook (the restored digest waits for it)"))
    }
  }

  /// Every command of the app's `hooks` (`ready`, `digest`, and the lifecycle events' commands) by its key, in a
  /// steady order: what a load and a launch check can run.
  package var commandsToCheck: [(key: String, command: [String])] {
    var commands: [(key: String, command: [String])] = []
    if let ready { commands.append((AppConfig.readyHook, ready.command)) }
    if let digest { commands.append((AppConfig.digestHook, digest.command)) }
    for (kind, hook) in hooks.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      if let command = hook.command { commands.append((kind.rawValue, command)) }
    }
    return commands
  }

  /// The app's `ready` and `digest` hooks as the policy keeps them.
  var commands: AppCommands {
    AppCommands(
      ready: ready?.command, digest: digest?.command, digestValidFor: digest?.validFor?.duration,
      readyTimeout: ready?.timeout?.duration, digestTimeout: digest?.timeout?.duration)
  }

  /// What an environment variable's name must be.
  public static let variableNameRule = "a variable name must be non-empty, without '=' or NUL"

  /// Whether `name` can name an environment variable (`NAME=value` in a process's environment).
  public static func isVariableName(_ name: String) -> Bool {
    !name.isEmpty && !name.contains("=") && !name.utf8.contains(0)
  }

  /// Variables of jetsamd's own environment that must not leak into apps (they describe jetsamd, not them).
  static func isDaemonVariable(_ key: String) -> Bool {
    key.hasPrefix("JETSAM_")
      || ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"].contains(key)
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

  /// The app as the policy keeps it: how it is started (its caps over `defaults`, its user or else `defaultUser`),
  /// its band lift, acknowledgement mode, hooked events, locked-file rule and what becomes of its sockets.
  public func settings(defaults: AppCaps, defaultUser: String?, adHoc: Bool = false) -> AppSettings {
    let caps = defaults.overridden(by: self.caps)
    let launch = LaunchSpec(
      command: command, environment: env, workingDirectory: workingDirectory, user: user ?? defaultUser,
      limits: AppLimits(memoryBytes: caps.memoryLimit?.bytes, cpuPercent: caps.cpuLimit, pids: caps.pidsLimit))
    // Mapping an empty dictionary still allocates storage: for 1,000 apps without hooks, 110 KB kept for nothing.
    let hooks: [AppEventKind: AppHook] =
      self.hooks.isEmpty
      ? [:]
      : self.hooks.mapValues { hook in
        if let signal = hook.signal {
          AppHook.signal(signal)
        } else {
          AppHook.command(hook.command ?? [], timeout: hook.timeout?.duration)
        }
      }
    return AppSettings(
      launch: launch, bandFloor: band, acknowledgements: acknowledgements ?? .auto,
      hooks: hooks, commands: commands, adHoc: adHoc, lockedFiles: (lockedFiles ?? LockedFilesSettings()).rule,
      sockets: (sockets ?? SocketsSettings()).rule)
  }
}
