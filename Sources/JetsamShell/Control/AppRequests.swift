import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Answers `launch` and the lifecycle verbs (`activate`, `background`, `suspend`, `resume`, `terminate`, `kill`),
/// and `debugFreeze`: turns them into requests to the policy through the daemon's one way in, and answers once what
/// they asked for has happened (a launch once its spawn has its answer and the state file holds it, a suspend once
/// the apps are seen stopped). It decides nothing.
final class AppRequests {
  /// All it sees of the daemon, and all it may ask of it.
  private let daemon: any AppControlView
  /// Whether a launch's commands can run, as its user (``LaunchCommandChecker``).
  private let commandCheck: any LaunchCommandChecking

  init(daemon: any AppControlView, commandCheck: any LaunchCommandChecking) {
    self.daemon = daemon
    self.commandCheck = commandCheck
  }

  /// The one deliberate block of the loop: for testing that systemd's watchdog restarts a stuck jetsamd.
  func debugFreeze() throws -> ControlResponse {
    guard daemon.config.debugRequests else {
      throw ControlError(.permissionDenied, "debugFreeze is refused unless the config sets debugRequests: true")
    }
    daemon.log.warning("debugFreeze: blocking the event loop for good (the watchdog should restart jetsamd)")
    while true { sleep(3600) }  // debugFreeze: blocks on purpose
  }

  /// Launches a configured or an ad-hoc app, as ``ControlRequest/launchSpec(config:peer:userName:)`` allows, once
  /// its commands are seen able to run (``LaunchCommandCheck``, as the app's user, off the loop): a launch whose command cannot run is
  /// refused with nothing started and nothing told to the policy.
  func launch(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
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
          connection.reply(ControlResponse.failure(for: error))
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
    return daemon.appResponse(name)
  }

  func lifecycle(_ verb: LifecycleVerb, _ request: ControlRequest, connection: ControlConnection) throws
    -> ControlResponse?
  {
    let names = try request.lifecycleTargets()
    let now = MonotonicClock.now()
    let events = names.map { verb.event(app: $0, at: now) }
    try daemon.submit(events)
    let answer = { [unowned self] () -> ControlResponse in
      if request.apps == nil { return self.daemon.appResponse(names[0]) }
      var response = ControlResponse(ok: true)
      response.apps = names.compactMap { self.daemon.policy.app(named: $0).map(self.daemon.appInfo) }
      return response
    }
    guard request.verb == .suspend, names.contains(where: daemon.isStopPending) else { return answer() }
    daemon.afterSuspensions(of: names) { [weak connection] in connection?.reply(answer()) }
    return nil
  }
}
