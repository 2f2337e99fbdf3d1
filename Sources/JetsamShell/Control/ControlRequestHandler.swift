import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamSpawning

/// Answers control requests (PROTOCOL-CONTROL.md): validates them, turns them into policy requests through
/// the daemon's one entry point, and reports what the policy and the supervisor know. It decides nothing.
final class ControlRequestHandler {
  /// All it sees of the daemon, and all it may ask of it.
  private let daemon: any ControlView
  /// Blocking work (reading the whole record log, the diagnostics kept) runs here, off the loop.
  private let background: any BackgroundRunning
  /// Whether a launch's commands can run, as its user (``LaunchCommandChecker``).
  private let commandCheck: any LaunchCommandChecking

  init(daemon: any ControlView, background: any BackgroundRunning, commandCheck: any LaunchCommandChecking) {
    self.daemon = daemon
    self.background = background
    self.commandCheck = commandCheck
  }

  /// Answers one control request, or returns nil and answers through `connection` later (a suspend is answered
  /// once the apps' processes are seen stopped, or counted incomplete by the suspend timeout).
  func handle(_ request: ControlRequest, from connection: ControlConnection) -> ControlResponse? {
    do {
      switch request.verb {
      case .status: return statusResponse()
      case .ps: return psResponse()
      case .pressure: return try pressure(request, connection: connection)
      case .device: return try device(request)
      case .metrics: return try metrics(request, connection: connection)
      case .diagnostics: return try diagnostics(request, connection: connection)
      case .exits: return try exits(request, connection: connection)
      case .watch: return try watch(request, connection: connection)
      case .launch: return try launch(request, connection: connection)
      case .activate, .background, .suspend, .resume, .terminate, .kill:
        return try lifecycle(request, connection: connection)
      case .debugFreeze: return try debugFreeze()
      }
    } catch {
      return failure(error)
    }
  }

  /// The answer to a request that failed with `error`.
  private func failure(_ error: any Error) -> ControlResponse {
    switch error {
    case let error as ControlError:
      return .failure(error)
    case let error as PolicyError:
      switch error {
      case .unknownApp: return .failure(ControlError(.unknownApp, error.description))
      case .illegalTransition: return .failure(ControlError(.illegalTransition, error.description))
      case .notLaunchable: return .failure(ControlError(.launchFailed, error.description))
      }
    default:
      return .failure(ControlError(.internalError, "\(error)"))
    }
  }

  /// The one deliberate block of the loop: for testing that systemd's watchdog restarts a stuck jetsamd.
  private func debugFreeze() throws -> ControlResponse {
    guard daemon.config.debugRequests else {
      throw ControlError(.permissionDenied, "debugFreeze is refused unless the config sets debugRequests: true")
    }
    daemon.log.warning("debugFreeze: blocking the event loop for good (the watchdog should restart jetsamd)")
    while true { sleep(3600) }  // debugFreeze: blocks on purpose
  }

  /// Launches a configured or an ad-hoc app, as ``ControlRequest/launchSpec(config:peer:userName:)`` allows, once
  /// its commands are seen able to run (``LaunchCommandCheck``, as the app's user, off the loop): a launch whose command cannot run is
  /// refused with nothing started and nothing told to the policy.
  private func launch(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    guard !daemon.shuttingDown else { throw ControlError(.launchFailed, "jetsamd is stopping") }
    let (name, spec) = try request.launchSpec(
      config: daemon.config, peer: connection.peerUser, userName: { _ in connection.peerName })
    try refuseIfRunning(name)
    guard
      let check = LaunchCommandCheck(
        request: request, spec: spec, name: name, appsDirectory: daemon.appsDirectory)
    else { return try start(name, spec: spec, request: request, connection: connection) }
    commandCheck.problem(
      of: check,
      then: { [weak connection, unowned self] (problem: String?) in
        guard let connection else { return }
        if let problem {
          self.daemon.log.notice("launch of \(name) refused: \(problem)")
          connection.reply(.failure(ControlError(.launchFailed, problem)))
          return
        }
        // The daemon may have begun to stop, or the app been launched by someone else, meanwhile.
        do {
          guard !self.daemon.shuttingDown else { throw ControlError(.launchFailed, "jetsamd is stopping") }
          try self.refuseIfRunning(name)
          if let answer = try self.start(name, spec: spec, request: request, connection: connection) {
            connection.reply(answer)
          }
        } catch {
          connection.reply(self.failure(error))
        }
      })
    return nil
  }

  private func refuseIfRunning(_ name: String) throws(ControlError) {
    if let status = daemon.policy.app(named: name), status.state.isRunning {
      throw ControlError(.illegalTransition, "\(name) is already running (\(status.state.rawValue)); use activate")
    }
  }

  /// Hands the launch to the policy; answers once the spawn has its answer (a spawner service's comes later) and
  /// the state file holds the new process: a client that has heard of a pid can count on its end being recorded,
  /// even by a successor if this jetsamd dies the next moment. At once when both are already so; otherwise nil,
  /// and the answer follows.
  private func start(_ name: String, spec: AppConfig, request: ControlRequest, connection: ControlConnection) throws
    -> ControlResponse?
  {
    try daemon.submit([
      .configure(app: name, settings: daemon.config.settings(of: spec, named: name), launchCount: 0),
      .launch(app: name, foreground: request.background != true, at: MonotonicClock.now()),
    ])
    var answeredLater = false
    var readyNow: Result<ControlResponse, ControlError>?
    daemon.whenSpawnSettled(name) { [weak connection, unowned self] in
      // The answer as the spawn left it (the pid, or why it failed), even if the program has ended by the time the
      // state file holds it.
      let answer = Result { () throws(ControlError) in try self.launchAnswer(name) }
      self.daemon.whenStateSaved { [weak connection] in
        guard answeredLater else {
          readyNow = answer
          return
        }
        switch answer {
        case .success(let response): connection?.reply(response)
        case .failure(let error): connection?.reply(.failure(error))
        }
      }
    }
    if let readyNow { return try readyNow.get() }
    answeredLater = true
    return nil
  }

  /// An honest answer: a spawn that failed (no such program, a bad directory, exec refused) is an error naming
  /// the stage, not an app that is quietly "terminated".
  private func launchAnswer(_ name: String) throws(ControlError) -> ControlResponse {
    if let status = daemon.policy.app(named: name), let failure = daemon.spawnFailure(of: name),
      failure.launch == status.launch, !status.state.isRunning
    {
      throw ControlError(.launchFailed, "launch of \(name) failed: \(failure.message)")
    }
    return appResponse(name)
  }

  private func lifecycle(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let names = try request.lifecycleTargets()
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
    try daemon.submit(events)
    let answer = { [unowned self] () -> ControlResponse in
      if request.apps == nil { return self.appResponse(names[0]) }
      var response = ControlResponse(ok: true)
      response.apps = names.compactMap { self.daemon.policy.app(named: $0).map(self.appInfo) }
      return response
    }
    guard request.verb == .suspend, names.contains(where: daemon.isStopPending) else { return answer() }
    daemon.afterSuspensions(of: names) { [weak connection] in connection?.reply(answer()) }
    return nil
  }

  private func appResponse(_ name: String) -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.app = daemon.policy.app(named: name).map(appInfo)
    return response
  }

  private func appInfo(_ status: AppStatus) -> AppInfo {
    let cgroup = status.state.isRunning ? status.pid.flatMap { daemon.cgroup(of: status.name, pid: $0) } : nil
    var info = AppInfo(
      name: status.name, pid: status.state.isRunning ? status.pid : nil, state: status.state.coarseName,
      lifecycleState: status.state, band: status.band,
      memoryBytes: (try? cgroup?.memoryUsage()) ?? 0,
      memoryLimitBytes: (try? cgroup?.memoryLimit()) ?? nil,
      // An app this daemon has not seen change state yet (never launched, or ended before a restart) has no
      // time in its state to speak of.
      stateSeconds: status.stateEnteredAt.nanoseconds == 0
        ? 0 : MonotonicClock.now().seconds(since: status.stateEnteredAt),
      launch: status.launch)
    if status.state.isRunning {
      info.restoration = status.restoration?.rawValue
      info.previousDigest = status.previousDigest
      info.restoredDigest = status.restoredDigest
      info.savedDigest = status.savedDigest
      info.resumption = status.resumption?.verdict.rawValue
      info.resumedDigest = status.resumption?.resumedDigest
      info.speaksProtocol = status.speaksProtocol
      if status.continuedByOthers > 0 { info.continuedWhileSuspended = status.continuedByOthers }
      if status.suspendIncomplete {
        info.suspendIncomplete = true
      } else if status.state == .suspended && daemon.isStopPending(status.name) {
        info.stopping = true
      }
    }
    info.stateSummary = status.summary ?? daemon.policy.lastExit(of: status.name)?.stateSummary
    return info
  }

  private func psResponse() -> ControlResponse {
    // A suspended app someone else continued is stopped again before the answer, which then says "stopping".
    daemon.noticeContinued()
    var response = ControlResponse(ok: true)
    response.apps = daemon.policy.apps.map(appInfo)
    return response
  }

  private func statusResponse() -> ControlResponse {
    var counts: [String: Int] = [:]
    for (state, count) in daemon.policy.appCountsByState { counts[state.coarseName, default: 0] += count }
    var response = ControlResponse(ok: true)
    response.status = StatusInfo(
      version: Daemon.version, uptimeSeconds: MonotonicClock.now().seconds(since: daemon.startedAt),
      cgroupMode: daemon.cgroupMode, suspendMode: daemon.config.suspend.mode.rawValue,
      deviceCgroup: daemon.deviceCgroup, appsByState: counts, recordsWritten: daemon.recordsWritten,
      recordLog: daemon.recordLog.path)
    return response
  }

  /// The whole picture now; from then on, every change is pushed on this connection (``LiveFeed``).
  private func watch(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse {
    let interval = try request.watchInterval()
    daemon.noticeContinued()
    var response = ControlResponse(ok: true)
    response.watch = WatchSnapshot(
      monotonicNanoseconds: MonotonicClock.now().nanoseconds, apps: daemon.policy.apps.map(appInfo),
      pressure: pressureInfo(), device: DeviceInfo(charging: daemon.policy.deviceCharging),
      intervalSeconds: interval.seconds)
    daemon.watch(connection, interval: interval)
    return response
  }

  /// Shows the device's conditions, after switching `charging` if the request says.
  private func device(_ request: ControlRequest) throws -> ControlResponse {
    if let charging = request.charging {
      try daemon.submit([.setCharging(charging, at: MonotonicClock.now())])
      daemon.log.notice("device \(charging ? "idle and charging" : "no longer charging")")
      daemon.publishDevice(charging: daemon.policy.deviceCharging)
    }
    var response = ControlResponse(ok: true)
    response.device = DeviceInfo(charging: daemon.policy.deviceCharging)
    return response
  }

  /// Pressure requests; with `wait`, answered once the balloon is charged or jetsam has done what the level asks.
  private func pressure(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let now = MonotonicClock.now()
    let wait = try request.pressureWait()
    let action = try request.pressureRequest(ram: daemon.ramBytes)
    switch action {
    case .get: break
    case .set(let level): try daemon.submit([.forceLevel(level, at: now)])
    case .clear: try daemon.submit([.forceLevel(nil, at: now)])
    case .allocate(let bytes): try daemon.inflateBalloon(bytes: bytes)
    case .release: daemon.releaseBalloon()
    }
    guard let wait else { return pressureResponse() }
    let what: String
    let check: ConditionWaiters.Check
    if case .allocate = action, let balloon = daemon.balloon {
      what = "the balloon to be charged"
      check = { [weak balloon, unowned daemon] in
        guard let balloon, daemon.balloon === balloon else {
          return .failure(ControlError(.launchFailed, "the balloon was released before it was charged"))
        }
        switch balloon.charge {
        case .filling: return nil
        case .charged: return .success(())
        case .failed:
          return .failure(ControlError(.launchFailed, "the balloon's process ended before it was charged"))
        }
      }
    } else {
      what = "jetsam to act on the level (no kill in flight or left to make, their records written)"
      check = { [unowned daemon] in daemon.isJetsamSettled ? .success(()) : nil }
    }
    let answer = { [unowned self] (outcome: Result<Void, ControlError>) -> ControlResponse in
      switch outcome {
      case .success: self.pressureResponse()
      case .failure(let error): .failure(error)
      }
    }
    let known = daemon.addWaiter(timeout: wait, what: what, check: check) { [weak connection] outcome in
      connection?.reply(answer(outcome))
    }
    return known.map(answer)
  }

  private func pressureResponse() -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.pressure = pressureInfo()
    return response
  }

  private func pressureInfo() -> PressureInfo {
    let policy = daemon.policy
    return PressureInfo(
      level: policy.level, forcedLevel: policy.forcedLevel,
      mode: { if case .host = daemon.config.device.ram { "host" } else { "device" } }(),
      ramBytes: daemon.ramBytes, availableBytes: daemon.availableBytes,
      thresholds: daemon.thresholds, balloonBytes: daemon.balloon?.bytes ?? 0)
  }

  /// The newest records, read from the end of the log on a background thread (the loop never reads the log) and
  /// answered from the loop. Only the bytes the log had when asked are read; a follower gets every later record as
  /// it is written, after the reply.
  private func exits(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let since = try request.sinceDate()
    let limit = try request.exitsLimit()
    var query = ExitRecordPage.Query(
      files: try daemon.recordLog.openForReading(), currentSize: daemon.recordLog.size(), app: request.app,
      since: since, limit: limit)
    query.judgedOnly = request.verdicts == true
    let path = daemon.recordLog.path
    if request.follow == true {
      connection.follow = FollowFilter(app: request.app, judgedOnly: request.verdicts == true)
    }
    // Read and encoded off the loop: a 4 MiB answer takes ~100 ms to encode, which would delay every kill.
    let read = { @Sendable [query] () -> Result<[UInt8], SystemError> in
      Result { () throws(SystemError) in
        let page = try ExitRecordPage.read(query)
        var response = ControlResponse(ok: true)
        response.exits = page.records
        if page.more { response.more = true }
        return response.line(encoder: .stable)
      }
    }
    answerInBackground(read, connection: connection, path: path)
    return nil
  }

  /// Runs `work` (reading the record log, encoding the answer) off the loop and answers `connection` with it.
  private func answerInBackground(
    _ work: @escaping @Sendable () -> Result<[UInt8], SystemError>, connection: ControlConnection, path: String
  ) {
    background.run(work) { [weak connection] result in
      switch result {
      case .success(let line): connection?.reply(line: line)
      case .failure(let error):
        connection?.reply(.failure(ControlError(.internalError, "reading \(path): \(error)")))
      }
    }
  }

  /// The CPU time and peak memory so far of these running apps, read from their cgroups here on the loop: one
  /// `pread` of each kept counter file per app, which never waits on the app (a suspended one included); an app whose
  /// counters cannot be read is left out.
  private func runningUsage(of names: some Sequence<String>) -> [String: (cpuSeconds: Double, peakBytes: Int64)] {
    var usage: [String: (cpuSeconds: Double, peakBytes: Int64)] = [:]
    for name in names {
      guard let pid = daemon.policy.app(named: name)?.pid, let cgroup = daemon.cgroup(of: name, pid: pid),
        let cpu = try? cgroup.cpuSeconds()
      else { continue }
      // A kernel without memory.peak (before 5.19) still has the current charge, the peak's lower bound.
      let peak = (try? cgroup.peakMemory()) ?? (try? cgroup.memoryUsage()) ?? 0
      usage[name] = (cpu, peak)
    }
    return usage
  }

  /// MetricKit-shaped payloads per app, added up from every record of the log and its rotated predecessors (after
  /// `since`) on a background thread: each record exactly once, one at a time (never the whole log in memory); the
  /// running launches' figures so far come from the policy, read here on the loop.
  private func metrics(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    if try request.wantsPrometheus() {
      var response = ControlResponse(ok: true)
      response.exposition = daemon.expositionText()
      return response
    }
    // Every field checked before the log is opened: a refusal must leave no descriptor behind.
    let since = try request.sinceDate()
    let app = try request.optionalApp()
    var running = daemon.policy.runningLaunchMetrics(at: MonotonicClock.now())
    if let app { running = running.filter { $0.key == app } }
    let usage = runningUsage(of: running.keys)
    // A launch that ended and whose record is still being made durable is neither running nor in the log yet: it
    // counts from the queue, or an app asked for right after its exit would have no payload at all.
    let unwritten = daemon.unwrittenRecords.filter { record in
      (app == nil || record.app == app)
        && (since.map { (ControlRequest.rfc3339(record.time) ?? .distantPast) >= $0 } ?? true)
    }
    let query = ExitRecordPage.Query(
      files: try daemon.recordLog.openForReading(), currentSize: daemon.recordLog.size(), app: app,
      since: since, limit: .max)
    let host = HostDescription.current()
    let now = AppSupervisor.timestamp()
    let path = daemon.recordLog.path
    let count = { @Sendable [query, running, usage, unwritten] () -> Result<[UInt8], SystemError> in
      Result { () throws(SystemError) in
        var byApp: [String: (totals: MetricTotals, oldest: String)] = [:]
        var logged = Set<RecordIdentity>()
        try ExitRecordPage.visit(query) { record, _ in
          // Newest first: the last time seen of an app is its oldest record.
          byApp[record.app, default: (MetricTotals(), record.time)].totals.count(record)
          byApp[record.app]!.oldest = record.time
          logged.insert(RecordIdentity(record))
          return true
        }
        // The log's size is taken as its writer leaves it, a record's removal from the queue when the loop hears
        // it is durable: one may be in both.
        for record in unwritten where !logged.contains(RecordIdentity(record)) {
          byApp[record.app, default: (MetricTotals(), record.time)].totals.count(record)
        }
        for (name, metrics) in running { byApp[name, default: (MetricTotals(), now)].totals.add(metrics) }
        for (name, figures) in usage {
          byApp[name, default: (MetricTotals(), now)].totals.addUsage(
            cpuSeconds: figures.cpuSeconds, peakMemoryBytes: figures.peakBytes)
        }
        var response = ControlResponse(ok: true)
        response.metrics = byApp.keys.sorted().map { app in
          byApp[app]!.totals.payload(
            timeStampBegin: metricKitTime(since.map(AppSupervisor.timestamp) ?? byApp[app]!.oldest),
            timeStampEnd: metricKitTime(now),
            metaData: PayloadMetaData(
              bundleIdentifier: app, osVersion: host.osVersion, platformArchitecture: host.architecture,
              deviceType: host.name))
        }
        return response.line(encoder: .stable)
      }
    }
    answerInBackground(count, connection: connection, path: path)
    return nil
  }

  /// The diagnostics kept, oldest first, read on a background thread.
  private func diagnostics(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let since = try request.sinceDate()
    let app = try request.optionalApp()
    guard let store = daemon.diagnostics else {
      var response = ControlResponse(ok: true)
      response.diagnostics = []
      return response
    }
    let read = { @Sendable () -> [UInt8] in
      var response = ControlResponse(ok: true)
      response.diagnostics = store.read(app: app, since: since)
      return response.line(encoder: .stable)
    }
    background.run(read) { [weak connection] line in connection?.reply(line: line) }
    return nil
  }
}
