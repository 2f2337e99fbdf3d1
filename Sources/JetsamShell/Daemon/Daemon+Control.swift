import Foundation
import Glibc
import JetsamCore
import JetsamProtocol

extension Daemon {
  /// Answers one control request.
  func handle(_ request: ControlRequest, from connection: ControlConnection) -> ControlResponse {
    do {
      switch request.verb {
      case .status: return statusResponse()
      case .ps: return psResponse()
      case .pressure: return try pressure(request)
      case .exits: return try exits(request, connection: connection)
      case .launch: return try launch(request)
      case .activate, .background, .suspend, .resume, .terminate, .kill: return try lifecycle(request)
      case .debugFreeze:
        guard config.debugRequests else {
          throw ControlError(.permissionDenied, "debugFreeze is refused unless the config sets debugRequests: true")
        }
        log.warning("debugFreeze: blocking the event loop for good (the watchdog should restart jetsamd)")
        while true { sleep(3600) }
      }
    } catch let error as ControlError {
      return .failure(error)
    } catch let error as PolicyError {
      switch error {
      case .unknownApp: return .failure(ControlError(.unknownApp, error.description))
      case .illegalTransition: return .failure(ControlError(.illegalTransition, error.description))
      }
    } catch {
      return .failure(ControlError(.internalError, "\(error)"))
    }
  }

  private func requireApp(_ request: ControlRequest) throws -> String {
    guard let app = request.app else {
      throw ControlError(.badRequest, "app: missing (\(request.verb.rawValue) needs an app name)")
    }
    guard AppName.isValid(app) else { throw ControlError(.badRequest, "app: \"\(app)\": \(AppName.rule)") }
    return app
  }

  private func launch(_ request: ControlRequest) throws -> ControlResponse {
    guard !shuttingDown else { throw ControlError(.launchFailed, "jetsamd is stopping") }
    let name = try requireApp(request)
    var spec: AppConfig
    if let command = request.command {
      guard !command.isEmpty else { throw ControlError(.badRequest, "command: must not be empty") }
      spec = config.apps[name] ?? AppConfig(command: command)
      spec.command = command
    } else if let configured = config.apps[name] {
      spec = configured
    } else {
      throw ControlError(.unknownApp, "no app named \"\(name)\" in the config; give a command to launch an ad-hoc app")
    }
    for (key, value) in request.env ?? [:] { spec.env[key] = value }
    var caps = spec.caps ?? AppCaps(memoryLimit: nil, cpuLimit: nil, pidsLimit: nil)
    if let memory = request.memoryLimit { caps.memoryLimit = ByteSize(bytes: memory) }
    if let cpu = request.cpuLimit {
      guard cpu > 0 else { throw ControlError(.badRequest, "cpuLimit: must be above 0") }
      caps.cpuLimit = cpu
    }
    spec.caps = caps
    if let band = request.band { spec.band = band }

    if let status = policy.app(named: name), status.state.isRunning {
      throw ControlError(.illegalTransition, "\(name) is already running (\(status.state.rawValue)); use activate")
    }
    let launches = max(policy.app(named: name)?.launch ?? 0, lastExits[name]?.launch ?? 0)
    try self.request(.configure(app: name, bandFloor: spec.band, launchCount: launches))
    launchSpecs[name] = spec
    try self.request(.launch(app: name, foreground: request.background != true, at: MonotonicClock.now()))
    return appResponse(name)
  }

  private func lifecycle(_ request: ControlRequest) throws -> ControlResponse {
    // `apps` names several apps at once (suspend and resume them together); `app` names one.
    let names =
      try request.apps.map { apps in
        try apps.map { name in
          guard AppName.isValid(name) else { throw ControlError(.badRequest, "apps: \"\(name)\": \(AppName.rule)") }
          return name
        }
      } ?? [requireApp(request)]
    guard !names.isEmpty else { throw ControlError(.badRequest, "apps: empty list") }
    let now = MonotonicClock.now()
    let events = names.map { name -> PolicyEvent in
      switch request.verb {
      case .activate: .activate(app: name, at: now)
      case .background: .moveToBackground(app: name, at: now)
      case .suspend: .suspend(app: name, at: now)
      case .resume: .resume(app: name, at: now)
      case .terminate: .terminate(app: name, at: now)
      default: .kill(app: name, reason: request.reason ?? .memoryPressure, at: now)
      }
    }
    try requestAll(events)
    if request.apps == nil { return appResponse(names[0]) }
    var response = ControlResponse(ok: true)
    response.apps = names.compactMap { policy.app(named: $0).map(appInfo) }
    return response
  }

  private func appResponse(_ name: String) -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.app = policy.app(named: name).map(appInfo)
    return response
  }

  func appInfo(_ status: AppStatus) -> AppInfo {
    let process = status.state.isRunning ? processes[status.name] : nil
    var info = AppInfo(
      name: status.name, pid: status.state.isRunning ? status.pid : nil, state: status.state.coarseName,
      lifecycleState: status.state, band: status.band,
      memoryBytes: (try? process?.cgroup.memoryUsage()) ?? 0,
      memoryLimitBytes: (try? process?.cgroup.memoryLimit()) ?? nil,
      // An app this daemon has not seen change state yet (never launched, or ended before a restart) has no
      // time in its state to speak of.
      stateSeconds: status.stateEnteredAt.nanoseconds == 0
        ? 0 : MonotonicClock.now().seconds(since: status.stateEnteredAt),
      launch: status.launch)
    info.restoration = process?.restoration
    info.savedDigest = process?.previousDigest
    info.restoredDigest = process?.restoredDigest
    info.stateSummary = process?.summary ?? lastExits[status.name]?.stateSummary
    return info
  }

  private func psResponse() -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.apps = policy.apps.map(appInfo)
    return response
  }

  private func statusResponse() -> ControlResponse {
    var counts: [String: Int] = [:]
    for app in policy.apps { counts[app.state.coarseName, default: 0] += 1 }
    var response = ControlResponse(ok: true)
    response.status = StatusInfo(
      version: Daemon.version, uptimeSeconds: MonotonicClock.now().seconds(since: startedAt),
      cgroupMode: layout.modeName, suspendMode: config.suspend.mode.rawValue, deviceCgroup: device.displayPath,
      appsByState: counts, recordsWritten: records.written, recordLog: records.path)
    return response
  }

  private func pressure(_ request: ControlRequest) throws -> ControlResponse {
    let now = MonotonicClock.now()
    switch request.action ?? "get" {
    case "get": break
    case "set":
      guard let level = request.level else {
        throw ControlError(.badRequest, "level: missing (normal, warning, urgent, critical)")
      }
      try self.request(.forceLevel(level, at: now))
    case "clear":
      try self.request(.forceLevel(nil, at: now))
    case "allocate":
      guard let size = request.size, size > 0 else { throw ControlError(.badRequest, "size: missing or not positive") }
      try inflateBalloon(bytes: size)
    case "release":
      balloon?.release()
      balloon = nil
      monitor.sample()
    case let other:
      throw ControlError(
        .badRequest, "action: unknown pressure action \"\(other)\" (get, set, clear, allocate, release)")
    }
    var response = ControlResponse(ok: true)
    response.pressure = PressureInfo(
      level: policy.level, forcedLevel: policy.forcedLevel,
      mode: { if case .host = config.device.ram { "host" } else { "device" } }(),
      ramBytes: monitor.counter.ramBytes, availableBytes: monitor.lastAvailable,
      thresholds: thresholds, balloonBytes: balloon?.bytes ?? 0)
    return response
  }

  private func exits(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse {
    var since: Date?
    if let text = request.since {
      guard
        let date = (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
          ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
      else { throw ControlError(.badRequest, "since: \"\(text)\" is not an RFC 3339 time") }
      since = date
    }
    let contents = try ExitRecordLog.read(path: records.path)
    var response = ControlResponse(ok: true)
    response.exits = contents.records.filter { record in
      if let app = request.app, record.app != app { return false }
      if let since {
        let time = (try? Date(record.time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        return (time ?? .distantPast) >= since
      }
      return true
    }
    if request.follow == true { connection.follow = FollowFilter(app: request.app) }
    return response
  }
}
