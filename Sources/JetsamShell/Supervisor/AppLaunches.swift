import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform

/// Launches apps: the previous launch's cgroup let go, the user looked up off the loop, the app's cgroup, channel and
/// crash socket made, the process started through the ``ProcessLauncher``, and the app registered and reported
/// (`spawned`, or `spawnFailed` with why). A launch the launcher has not answered is "in flight": its request's answer
/// and a stop wait for it.
final class AppLaunches {
  /// The supervisor's seams: the loop, cgroups, the launcher, signals, users, the oom scores, diagnostics.
  private let seams: AppSupervisor.Seams
  private var loop: any LoopScheduling { seams.loop }
  private var launcher: any ProcessLauncher { seams.launcher }
  private let log: Logger
  private let records: RecordQueue
  private let reaper: CgroupReaper
  private let requests: SpawnRequests
  private let channels: AppChannels
  /// Watches each app started (and enters it among the running apps).
  private let ends: AppEndWatcher
  private let apps: RunningApps
  /// Where a launch's outcome goes (the policy), and a channel opened (the daemon).
  private let inbox: any ResultInbox
  /// Set when jetsamd stops or restarts: a launch the spawner service answers after that is ended at once.
  var isClosing = false
  /// Each app's last spawn that failed, and why (for the launch request's answer).
  private(set) var failures: [String: (launch: Int, message: String)] = [:]
  private var spawnsInFlight: Set<String> = []
  private var spawnWaiters: [String: [() -> Void]] = [:]

  init(
    seams: AppSupervisor.Seams, log: Logger, records: RecordQueue, reaper: CgroupReaper, requests: SpawnRequests,
    channels: AppChannels, ends: AppEndWatcher, apps: RunningApps, inbox: any ResultInbox
  ) {
    self.seams = seams
    self.log = log
    self.records = records
    self.reaper = reaper
    self.requests = requests
    self.channels = channels
    self.ends = ends
    self.apps = apps
    self.inbox = inbox
  }

  /// Forgets app `name`'s last failed spawn (the policy no longer remembers the app).
  func forgetFailure(of name: String) { failures[name] = nil }

  /// Starts app `name` as `spec` says.
  func spawn(_ name: String, launch: Int, previousExit: PreviousExit?, spec: LaunchSpec) {
    // The last launch's cgroup may still be held for its record (which stays queued and in the state file): it goes
    // now. A relaunch right after an exit may find it still on its way out: start once it is gone.
    records.releaseCgroups(of: name)
    if reaper.isRemoving(name) {
      return reaper.whenRemoved(name) { [unowned self] removed in
        guard removed else {
          return self.report(
            .spawnFailed(
              app: name, message: "the cgroup of \(name)'s previous launch could not be removed", at: self.loop.now()))
        }
        self.spawn(name, launch: launch, previousExit: previousExit, spec: spec)
      }
    }
    // Whom it runs as comes from the user database, which may be seconds away (sssd, LDAP): looked up off the
    // loop, the spawn goes on with the answer. Meanwhile the launch counts as in flight (its answer and a stop
    // wait for it); a spawn that fails at once has its waiters told here, one that waits for the launcher later.
    spawnsInFlight.insert(name)
    lookUpUser(of: spec) { [unowned self] found in
      self.spawnsInFlight.remove(name)
      self.spawn(name, spec: spec, launch: launch, previousExit: previousExit, as: found)
      if !self.spawnsInFlight.contains(name) { self.tellSpawnWaiters(name) }
    }
  }

  /// Whom `spec` runs as (nil: jetsamd's own user) and whose environment it starts with.
  private func lookUpUser(
    of spec: LaunchSpec,
    then: @escaping (Result<(run: SpawnUser?, environment: SpawnUser?), SpawnError>) -> Void
  ) {
    guard let user = spec.user else { return seams.users.user(id: geteuid()) { own in then(.success((nil, own))) } }
    seams.users.user(named: user) { found in then(found.map { ($0, $0) }) }
  }

  /// Starts app `name` as `found` says, once its user is known.
  private func spawn(
    _ name: String, spec: LaunchSpec, launch: Int, previousExit: PreviousExit?,
    as found: Result<(run: SpawnUser?, environment: SpawnUser?), SpawnError>
  ) {
    var cgroup: (any AppCgroupControl)?
    do {
      let appCgroup = try seams.cgroups.makeAppCgroup(name: name, limits: spec.limits)
      cgroup = appCgroup
      let output = try requests.openLog(name)
      defer { output.close() }
      let pair = try AppChannel.makePair()
      defer { pair.app.close() }  // the app has its own copy once spawned
      // The crash socket is made as the channel is (the app's end placed at CrashSocket.appDescriptor).
      let crashPair = try requests.crashHandler.map { _ throws(SystemError) in try CrashSocket.makePair() }
      defer { crashPair?.app.close() }
      let (user, environmentUser) = try found.get()
      requests.launchRuns(name, as: user)
      var request = SpawnRequest(
        arguments: spec.command,
        environment: requests.environment(
          for: spec, user: environmentUser, app: name, launch: launch, previousExit: previousExit,
          crashReporter: crashPair == nil ? nil : requests.crashHandler),
        workingDirectory: try spec.workingDirectory ?? requests.defaultWorkingDirectory(for: user, app: name),
        user: user,
        cgroupDirectory: appCgroup.spawnDirectory, joinProcsFiles: appCgroup.joinProcsFiles,
        oomScoreAdj: seams.oomScore(.foreground), stdin: nil, stdout: output, stderr: output,
        passedDescriptors: [(source: pair.app, target: AppProtocolCodec.channelDescriptor)])
      if let crashPair { request.passedDescriptors.append((crashPair.app, CrashSocket.appDescriptor)) }
      request.ownCgroupNamespace = requests.cgroupNamespaces
      request.label = name
      spawnsInFlight.insert(name)
      launcher.spawn(request) { [unowned self] result in
        self.spawnsInFlight.remove(name)
        switch result {
        case .success(let spawned):
          self.started(
            spawned, name: name, launch: launch, cgroup: appCgroup, channel: pair.daemon, crash: crashPair?.daemon)
        case .failure(let error):
          pair.daemon.close()
          crashPair?.daemon.close()
          self.launchFailed(name, launch: launch, cgroup: appCgroup, error)
        }
        self.tellSpawnWaiters(name)
      }
    } catch {
      launchFailed(name, launch: launch, cgroup: cgroup, error)
    }
  }

  /// The app's process runs: watch it, open its channel, and tell the policy.
  private func started(
    _ spawned: SpawnedProcess, name: String, launch: Int, cgroup: any AppCgroupControl, channel: FileDescriptor,
    crash: FileDescriptor?
  ) {
    guard !isClosing else {
      crash?.close()
      // Started by the spawner service while jetsamd stops: nobody would watch it, so it does not stay.
      try? seams.signals.send(.kill, pidfd: spawned.pidfd)
      try? cgroup.killAll()
      spawned.pidfd.close()
      channel.close()
      launcher.discardExit(of: spawned.pid)
      return launchFailed(name, launch: launch, cgroup: cgroup, SpawnError(stage: .spawnerService, errno: ECANCELED))
    }
    let app = AppProcess(name: name, launch: launch, cgroup: cgroup, pid: spawned.pid, pidfd: spawned.pidfd)
    app.startTime = launcher.startTime(of: spawned.pid)
    ends.watch(app)
    if let crash {
      do {
        app.crashSocket = try CrashSocket(
          fd: crash, loop: loop, appProcesses: { (try? cgroup.processIDs()) ?? [] },
          onReport: { [unowned self] report in
            self.report(.crashReported(app: name, pid: spawned.pid, crash: report, at: self.loop.now()))
          },
          onRefused: { [unowned self] reason in
            self.seams.diagnostics?.refusedCrashReport(app: name, pid: spawned.pid, reason: reason)
          })
      } catch {
        crash.close()
        log.error("\(name)'s crash socket: \(error); its crashes get no stacks")
      }
    }
    if channels.attach(channel, to: app) {
      // Under systemd the channel outlives a jetsamd restart in the descriptor store: the app keeps talking.
      inbox.post(.channelOpened(app: name, fd: channel))
      app.channel?.send(AppProtocolCodec.hello(app: name, launch: launch))
    }
    log.info("launched \(name) #\(launch) pid \(spawned.pid) in \(cgroup.displayPath)")
    report(.spawned(app: name, pid: spawned.pid, at: loop.now()))
  }

  private func launchFailed(_ name: String, launch: Int, cgroup: (any AppCgroupControl)?, _ error: any Error) {
    if let cgroup, apps[name] == nil { reaper.remove(cgroup) }
    log.error("launch of \(name) failed: \(error)")
    failures[name] = (launch, "\(error)")
    report(.spawnFailed(app: name, message: "\(error)", at: loop.now()))
  }

  private func report(_ event: PolicyEvent) { inbox.post(.observed([event])) }

  /// Whether a launch waits for its user's lookup or the spawner service's answer (a stop waits for it too).
  var hasSpawnsInFlight: Bool { !spawnsInFlight.isEmpty }

  /// Whether `name`'s launch waits for its user's lookup or the spawner service's answer.
  func isSpawnInFlight(_ name: String) -> Bool { spawnsInFlight.contains(name) }

  /// Calls `body` once `name`'s launch has started or failed (at once when it is not waiting).
  func whenSpawnSettled(_ name: String, _ body: @escaping () -> Void) {
    guard spawnsInFlight.contains(name) else { return body() }
    spawnWaiters[name, default: []].append(body)
  }

  private func tellSpawnWaiters(_ name: String) {
    for waiter in spawnWaiters.removeValue(forKey: name) ?? [] { waiter() }
  }
}
