import JetsamConfig
import JetsamCore
import JetsamPlatform

/// Suspends and resumes apps — SIGSTOP to every process, or the cgroup freezer — and watches that they stop and stay
/// stopped: the ``StopWatcher`` checks a stop until every process is seen stopped (``PolicyEvent/suspendCompleted``),
/// and a continuation jetsamd did not send is reported (``PolicyEvent/continuedWhileSuspended``) for the policy to
/// stop the app again. It decides nothing: whom to suspend and when is the policy's.
final class AppSuspender {
  private let loop: any LoopScheduling
  private let signals: any SignalSender
  private let log: Logger
  /// The running apps: those it acts on, and those it looks at for a continuation.
  private let apps: RunningApps
  /// Where a completed stop and a continuation go (the policy).
  private let inbox: any ResultInbox
  /// How apps are suspended (a reload may change it; resuming undoes either kind).
  var mode: SuspendConfig.Mode
  /// Destroys a suspended app's network sockets when the policy says (nil: never, as in the supervisor's tests).
  var sockets: SocketDefuncter?
  /// The resume of each app held until its sockets are destroyed, by number: a later suspend, kill or end of the
  /// app drops it (the app stays stopped, as the later action wants it), and only the latest one goes out.
  private var heldResumes: [String: Int] = [:]
  private var resumeNumber = 0
  /// The look at the suspended apps after a SIGCHLD that may hide a continuation (``noticeContinuedSoon()``), and
  /// whether it is due.
  private var continuedCheck: (any LoopSource)?
  private var continuedCheckDue = false
  /// How soon that look comes: a burst of SIGCHLDs (1,000 apps stopping) costs one look per this, not one each.
  static let continuedCheckDelay: Duration = .milliseconds(50)
  private let locksHeld: StopWatcher.LocksHeld
  private lazy var stops: StopWatcher = StopWatcher(
    loop: loop, isStopped: { [unowned self] app in self.isStopped(app) }, locksHeld: locksHeld, inbox: inbox,
    afterStops: afterStopChecks)
  /// The work that waits for the stops under way to be seen (readings taken at a suspension).
  private(set) lazy var afterStopChecks: AfterStopChecks = AfterStopChecks(
    loop: loop, isIdle: { [unowned self] in self.stops.isIdle })

  /// - Parameter locksHeld: the file locks each app holds, asked once its processes are seen stopped (the report of
  ///   the stop carries them).
  init(
    loop: any LoopScheduling, signals: any SignalSender, log: Logger, mode: SuspendConfig.Mode, apps: RunningApps,
    inbox: any ResultInbox, locksHeld: @escaping StopWatcher.LocksHeld
  ) {
    self.locksHeld = locksHeld
    self.loop = loop
    self.signals = signals
    self.log = log
    self.mode = mode
    self.apps = apps
    self.inbox = inbox
  }

  /// Checks the stops of a batch of suspends together (at the end of the batch).
  func checkNow() { stops.checkNow() }

  /// Whether no app's stop is being checked.
  var isIdle: Bool { stops.isIdle }

  /// Whether app `name`'s processes were told to stop and are not all seen stopped yet.
  func isPending(_ name: String) -> Bool { stops.isPending(name) }

  /// Stops checking app `name`'s stop (it is resumed, killed, terminated or gone), and drops a resume held back.
  func forget(_ name: String) {
    stops.forget(name)
    heldResumes[name] = nil
  }

  /// Looks for suspended apps whose main process someone else continued (SIGCONT) after jetsamd saw it stopped,
  /// and reports each to the policy (which stops it again). Called when a child was continued (SIGCHLD) and
  /// before `ps` is answered; one waitid per stopped app, no /proc.
  func noticeContinued() {
    var continued: [PolicyEvent] = []
    for app in apps.all where app.stop.signalStopped && !app.adopted {
      guard signals.isContinuedChild(pidfd: app.pidfd) == true else { continue }
      continued += continuedEvent(app)
    }
    if !continued.isEmpty { inbox.post(.observed(continued)) }
  }

  /// A child stopped or ended (SIGCHLD with that code): a continuation that came while that signal was pending was
  /// merged into it. Looks as ``noticeContinued()`` does, ``continuedCheckDelay`` from now, once for every such
  /// signal until then (each costs a flag's test: they come by the thousand when 1,000 apps stop).
  func noticeContinuedSoon() {
    guard !continuedCheckDue else { return }
    if continuedCheck == nil {
      continuedCheck = try? loop.addTimer(at: nil) { [unowned self] in
        self.continuedCheckDue = false
        self.noticeContinued()
      }
    }
    guard let continuedCheck else { return noticeContinued() }
    continuedCheckDue = true
    continuedCheck.schedule(at: loop.now().advanced(by: Self.continuedCheckDelay))
  }

  /// The spawner service saw `app`'s main process continued: the same as ``noticeContinued()`` finds for a child.
  func continuedByOthers(_ app: AppProcess) {
    // Not suspended by jetsamd (or continued by jetsamd itself, which clears the mark first): nothing to undo.
    guard app.stop.signalStopped else { return }
    inbox.post(.observed(continuedEvent(app)))
  }

  private func continuedEvent(_ app: AppProcess) -> [PolicyEvent] {
    app.stop.signalStopped = false
    log.warning("\(app.name) (pid \(app.pid)) was continued by another process while suspended; stopping it again")
    return [.continuedWhileSuspended(app: app.name, pid: app.pid, at: loop.now())]
  }

  /// Tells every process of the app to stop; the stop watcher sees them stopped.
  ///
  /// In signal mode only the main process is signalled here: the stop watcher's first check, at the end of this
  /// batch, lists the cgroup's processes anyway (it must, to see any forked meanwhile) and stops the others. One
  /// `cgroup.procs` read per app instead of two: with 1,000 apps those reads were a fifth of a batch suspend.
  func suspend(_ name: String, pid: Int32) {
    // A resume still held back (its sockets being destroyed) never goes out: the app has not run meanwhile.
    heldResumes[name] = nil
    guard let app = apps.process(name, pid: pid) else { return }
    do {
      switch mode {
      case .signal:
        try signals.send(.stop, pidfd: app.pidfd)
        app.stop.toldToStop = [app.pid]
        app.stop.stoppedAlone = false
        app.stop.signalStopped = false
      case .freezer:
        try app.cgroup.freeze()
        app.stop.frozen = true
      }
      stops.watch(app)
    } catch {
      // The processes cannot be told to stop (the cgroup is gone: the app is ending); its exit will follow.
      log.error("suspending \(name): \(error)")
    }
  }

  /// Whether every process of the app has stopped. In signal mode it stops any process forked while the
  /// signals went out.
  func isStopped(_ app: AppProcess) -> Bool {
    if app.stop.frozen { return (try? app.cgroup.events().frozen) ?? true }
    // The main process is our child (unless adopted): its pidfd says in one call whether it has stopped. Until it
    // has, the app has not, and listing the cgroup can wait for a later check.
    let mainStopped = app.adopted ? nil : signals.isStoppedChild(pidfd: app.pidfd)
    if mainStopped == false {
      if !app.stop.toldToStop.contains(app.pid) { try? signals.send(.stop, pidfd: app.pidfd) }
      app.stop.toldToStop = []
      return false
    }
    var stopped = true
    let pids = (try? app.cgroup.processIDs()) ?? []
    for pid in pids {
      let isStopped =
        pid == app.pid && mainStopped != nil
        ? true : signals.state(of: pid).map { "TtZX".contains($0) } ?? true  // gone counts as stopped
      guard !isStopped else { continue }
      if !app.stop.toldToStop.contains(pid) { signals.send(.stop, to: pid) }
      stopped = false
    }
    app.stop.toldToStop = []
    app.stop.stoppedAlone = stopped && pids == [app.pid]
    app.stop.signalStopped = stopped
    return stopped
  }

  /// Has the network sockets of the suspended app's processes destroyed, off the loop, and reports what was. Its
  /// processes are listed once the stops under way are seen (a resume meanwhile waits for the outcome all the same).
  func defunctSockets(of name: String, pid: Int32) {
    guard let sockets, apps.process(name, pid: pid) != nil else { return }
    sockets.defunct(
      app: name, pid: pid,
      // Looked up again when listed: by then the app may have ended, and its cgroup's files be closed.
      processes: { [apps] in try apps.process(name, pid: pid)?.cgroup.processIDs() ?? [] },
      after: afterStopChecks,
      then: { [weak self] outcome in
        guard let self else { return }
        self.inbox.post(
          .observed([
            .socketsDefuncted(
              app: name, pid: pid, sockets: outcome.sockets, problem: outcome.problem, at: self.loop.now())
          ]))
      })
  }

  /// Continues the app; while its sockets are being destroyed, only once that is done (or its budget is out), so that
  /// it never runs with sockets it was to lose.
  func resume(_ name: String, pid: Int32) {
    guard let app = apps.process(name, pid: pid) else { return }
    stops.forget(name)
    guard let sockets, sockets.isDefuncting(app: name, pid: pid) else { return continueNow(app) }
    resumeNumber += 1
    let number = resumeNumber
    heldResumes[name] = number
    sockets.whenDefuncted(app: name, pid: pid) { [weak self] in
      guard let self, self.heldResumes[name] == number else { return }
      self.heldResumes[name] = nil
      // Still this launch's (a kill or an end would have dropped the held resume).
      if let app = self.apps.process(name, pid: pid) { self.continueNow(app) }
    }
  }

  private func continueNow(_ app: AppProcess) {
    do {
      try continueEveryProcess(of: app)
    } catch {
      log.error("resuming \(app.name): \(error)")
    }
  }

  /// Undoes either kind of suspension (the mode may have been changed by a reload since the app was stopped).
  func continueEveryProcess(of app: AppProcess) throws {
    if app.stop.frozen {
      try app.cgroup.thaw()
      app.stop.frozen = false
      return
    }
    defer {
      app.stop.stoppedAlone = false
      app.stop.signalStopped = false
    }
    // A stopped process cannot fork: an app whose main process was alone when it was seen stopped has no other
    // process to continue, and its pidfd cannot hit a recycled pid.
    if app.stop.stoppedAlone, (try? signals.send(.resume, pidfd: app.pidfd)) != nil { return }
    for pid in try app.cgroup.processIDs() { signals.send(.resume, to: pid) }
  }
}
