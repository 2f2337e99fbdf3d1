import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamProtocol

/// What a `pressure` request asks for, checked.
package enum PressureRequest: Equatable {
  case get
  case set(PressureLevel)
  case clear
  case allocate(bytes: Int64)
  case release
}

/// The checks of a request's fields that need no daemon state: each returns what the request means or throws a
/// ``ControlError`` naming the field. Pure, so that the fuzz targets run the very checks jetsamd runs.
extension ControlRequest {
  /// The one app a request names in `app`.
  package func requiredApp() throws(ControlError) -> String {
    guard let app else { throw ControlError(.badRequest, "app: missing (\(verb.rawValue) needs an app name)") }
    guard AppName.isValid(app) else { throw ControlError(.badRequest, "app: \"\(app)\": \(AppName.rule)") }
    return app
  }

  /// The app a request may name in `app` to narrow what it reads (metrics, diagnostics): checked when given.
  package func optionalApp() throws(ControlError) -> String? {
    app == nil ? nil : try requiredApp()
  }

  /// The apps a lifecycle request acts on: every name in `apps` (suspend or resume several at once), else `app`.
  package func lifecycleTargets() throws(ControlError) -> [String] {
    guard let apps else { return [try requiredApp()] }
    guard !apps.isEmpty else { throw ControlError(.badRequest, "apps: empty list") }
    if let bad = apps.first(where: { !AppName.isValid($0) }) {
      throw ControlError(.badRequest, "apps: \"\(bad)\": \(AppName.rule)")
    }
    return apps
  }

  /// The app a `launch` request starts and how. Who may do what (README, "Security"): root anything; another
  /// member of the control group launches ad-hoc apps as itself, never as root or another user, and configured
  /// apps only as configured (caps, band and acknowledgement mode may be set; command, user and environment are
  /// the config's).
  ///
  /// - Parameters:
  ///   - peer: the client's uid (SO_PEERCRED), nil if unknown.
  ///   - userName: the password database's name for a uid.
  package func launchSpec(config: DaemonConfig, peer: uid_t?, userName: (uid_t) -> String?) throws(ControlError)
    -> (name: String, spec: AppConfig)
  {
    let name = try requiredApp()
    let isRoot = peer == 0
    if !isRoot, config.apps[name] != nil, command != nil || env != nil || ready != nil || digest != nil || hooks != nil
    {
      // Its hooks and commands run as the app's configured user, as the app itself does.
      throw ControlError(
        .permissionDenied,
        "only root may change the command, environment, ready, digest or hooks of the configured app \(name)")
    }
    var spec: AppConfig
    if let command {
      guard !command.isEmpty else { throw ControlError(.badRequest, "command: must not be empty") }
      spec = config.apps[name] ?? AppConfig(command: command)
      spec.command = command
    } else if let configured = config.apps[name] {
      spec = configured
    } else {
      throw ControlError(.unknownApp, "no app named \"\(name)\" in the config; give a command to launch an ad-hoc app")
    }
    if !isRoot && config.apps[name] == nil {
      // An ad-hoc app runs as whoever asked for it.
      guard let peer, let user = userName(peer) else {
        throw ControlError(
          .permissionDenied,
          "your user (uid \(peer.map(String.init) ?? "unknown")) has no entry in the password database")
      }
      spec.user = user
    }
    for (key, value) in env ?? [:] { spec.env[key] = value }
    if let problem = AppConfig.problem(command: spec.command, env: spec.env) {
      throw ControlError(.badRequest, "\(problem.key): \(problem.reason)")
    }
    var caps = spec.caps ?? AppCaps(memoryLimit: nil, cpuLimit: nil, pidsLimit: nil)
    if let memoryLimit {
      guard (1...ByteSize.maximum).contains(memoryLimit) else {
        throw ControlError(
          .badRequest, "memoryLimit: \(memoryLimit) is not a memory cap (1 to \(ByteSize.maximum) bytes)")
      }
      caps.memoryLimit = ByteSize(bytes: memoryLimit)
    }
    if let cpuLimit {
      guard AppCaps.cpuPercents.contains(cpuLimit) else {
        throw ControlError(.badRequest, "cpuLimit: \(cpuLimit) is not a CPU cap (1 to 100000 percent of a core)")
      }
      caps.cpuLimit = cpuLimit
    }
    spec.caps = caps
    if let band { spec.band = band }
    spec.acknowledgements = acknowledgements ?? spec.acknowledgements ?? config.appAcknowledgements
    var lockRule = (spec.lockedFiles ?? LockedFilesSettings()).over(config.lockedFiles)
    if let lockedFiles { lockRule.action = lockedFiles }
    spec.lockedFiles = lockRule
    try applyCommands(to: &spec)
    var socketRule = (spec.sockets ?? SocketsSettings()).over(config.sockets)
    if let sockets { socketRule.atSuspension = sockets }
    spec.sockets = socketRule
    return (name, spec)
  }

  /// The request's `ready`, `digest`, `digestValidFor` and `hooks` over the app's config entry's.
  private func applyCommands(to spec: inout AppConfig) throws(ControlError) {
    if let ready {
      if let problem = CommandHook.problem(command: ready) { throw ControlError(.badRequest, "ready: \(problem)") }
      spec.ready = CommandHook(command: ready)
    }
    if let digest {
      if let problem = CommandHook.problem(command: digest) { throw ControlError(.badRequest, "digest: \(problem)") }
      spec.digest = CommandHook(command: digest, validFor: spec.digest?.validFor)
    }
    // The restored digest is taken once ready says the relaunched program is up: without it there is none.
    if spec.digest != nil && spec.ready == nil {
      throw ControlError(.badRequest, "digest: needs a ready command (the restored digest waits for it)")
    }
    if let digestValidFor {
      guard spec.digest != nil else { throw ControlError(.badRequest, "digestValidFor: needs a digest command") }
      let most = AppMessage.maxValidFor.components.seconds
      guard digestValidFor.isFinite, digestValidFor > 0, digestValidFor <= Double(most) else {
        throw ControlError(
          .badRequest, "digestValidFor: \(digestValidFor) is not a number of seconds above 0 and at most \(most)")
      }
      spec.digest?.validFor = ConfigDuration(.milliseconds(Int64((digestValidFor * 1000).rounded(.up))))
    }
    for (event, command) in (hooks ?? [:]).sorted(by: { $0.key < $1.key }) {
      guard let kind = AppEventKind(rawValue: event) else {
        let known = AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")
        throw ControlError(.badRequest, "hooks.\(event): unknown lifecycle event (known: \(known))")
      }
      if let problem = CommandHook.problem(command: command) {
        throw ControlError(.badRequest, "hooks.\(event): \(problem)")
      }
      spec.hooks[kind] = LifecycleHook(command: command)
    }
  }

  /// How long a `pressure allocate` or `set` may wait for its effect (`wait`), or nil when it answers at once.
  package func pressureWait() throws(ControlError) -> Duration? {
    guard let wait else { return nil }
    guard verb == .pressure, action == "allocate" || action == "set" else {
      throw ControlError(.badRequest, "wait: only pressure allocate and pressure set wait")
    }
    guard wait > 0, wait <= 3600 else {
      throw ControlError(.badRequest, "wait: \(wait) is not a number of seconds from 0 (excluded) to 3600")
    }
    return .milliseconds(Int64((wait * 1000).rounded(.up)))
  }

  /// What a `pressure` request asks for. A balloon is bounded by the device's `ram`: one larger than its RAM could
  /// only push the host into its own OOM killer.
  package func pressureRequest(ram: Int64) throws(ControlError) -> PressureRequest {
    switch action ?? "get" {
    case "get": return .get
    case "set":
      guard let level else { throw ControlError(.badRequest, "level: missing (normal, warning, urgent, critical)") }
      return .set(level)
    case "clear": return .clear
    case "allocate":
      guard let size, (1...ram).contains(size) else {
        throw ControlError(
          .badRequest, "size: \(size.map(String.init) ?? "missing"): must be 1 byte to the device's RAM (\(ram))")
      }
      return .allocate(bytes: size)
    case "release": return .release
    case let other:
      throw ControlError(
        .badRequest, "action: unknown pressure action \"\(other)\" (get, set, clear, allocate, release)")
    }
  }

  /// Whether a `metrics` request asks for the Prometheus exposition (`format: "prometheus"`) rather than MetricKit's
  /// payloads (`metricKit`, the default).
  package func wantsPrometheus() throws(ControlError) -> Bool {
    switch format {
    case nil, "metricKit": return false
    case "prometheus":
      if since != nil || app != nil {
        throw ControlError(
          .badRequest, "\(since != nil ? "since" : "app"): the prometheus format shows everything, now")
      }
      return true
    case let other?:
      throw ControlError(.badRequest, "format: unknown format \"\(other)\" (metricKit, prometheus)")
    }
  }

  /// Seconds between the memory samples a `watch` is pushed (default 1).
  package func watchInterval() throws(ControlError) -> Duration {
    guard let interval else { return .seconds(1) }
    guard interval >= 0.05, interval <= 60 else {
      throw ControlError(.badRequest, "interval: \(interval) is not a number of seconds from 0.05 to 60")
    }
    return .milliseconds(Int64((interval * 1000).rounded()))
  }

  /// The `since` of an `exits` request, an RFC 3339 time.
  package func sinceDate() throws(ControlError) -> Date? {
    guard let since else { return nil }
    guard let date = Self.rfc3339(since) else {
      throw ControlError(.badRequest, "since: \"\(since)\" is not an RFC 3339 time")
    }
    return date
  }

  /// How many records an `exits` answer may hold when the request names no `limit`.
  package static let defaultExitsLimit = 1_000
  /// The most an `exits` request may ask for.
  package static let maximumExitsLimit = 100_000

  /// The `limit` of an `exits` request.
  package func exitsLimit() throws(ControlError) -> Int {
    guard let limit else { return Self.defaultExitsLimit }
    guard (1...Self.maximumExitsLimit).contains(limit) else {
      throw ControlError(.badRequest, "limit: \(limit): must be from 1 to \(Self.maximumExitsLimit)")
    }
    return limit
  }

  /// An RFC 3339 time, with or without fractional seconds.
  package static func rfc3339(_ text: String) -> Date? {
    (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
      ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
  }
}
