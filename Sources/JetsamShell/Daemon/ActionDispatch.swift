import JetsamCore
import JetsamWire

/// What the policy's actions that only tell (a level change, a verdict, a signpost) go to: the log, the journal, the
/// counters. The daemon's ``PolicyAnnouncer``; a recording fake in the supervisor's tests.
protocol PolicyAnnouncements: AnyObject {
  func levelChanged(from: PressureLevel, to: PressureLevel, available: Int64)
  func restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?, restoredDigest: String?)
  func resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement)
  func suspensionDeferred(app: String, pid: Int32, locks: [HeldLock])
  func socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?)
  func signposted(app: String, pid: Int32, name: String, phase: SignpostPhase)
  func acknowledged(app: String, pid: Int32, event: AppEventKind)
  func watchdogHeld(app: String, pid: Int32, event: AppEventKind, tracer: Int32?)
}

/// Each of the policy's actions to its one owner: the app supervisor carries out what touches apps (processes,
/// cgroups, channels, hooks, records, diagnostics), the announcer tells. Exhaustive and without `default`: a new
/// kind of action does not compile until it has an owner.
enum ActionDispatch {
  static func carryOut(
    _ action: PolicyAction, apps: AppSupervisor, announcements: any PolicyAnnouncements
  ) {
    switch action {
    case .spawn(let app, let launch, let previousExit, let spec):
      apps.launches.spawn(app, launch: launch, previousExit: previousExit, spec: spec)
    case .setLimits(let app, let pid, let limits): apps.setLimits(of: app, pid: pid, limits)
    case .suspend(let app, let pid): apps.suspender.suspend(app, pid: pid)
    case .suspendIncomplete(let app, _): apps.suspendIncomplete(app)
    case .resume(let app, let pid): apps.suspender.resume(app, pid: pid)
    case .defunctSockets(let app, let pid): apps.suspender.defunctSockets(of: app, pid: pid)
    case .kill(let app, let pid, let reason, let decision): apps.kill(app, pid: pid, reason: reason, decision: decision)
    case .terminate(let app, let pid): apps.terminate(app, pid: pid)
    case .signal(let app, let pid, let signal): apps.signalEveryProcess(of: app, pid: pid, signal)
    case .runHook(let app, let pid, let event, let command, let directory):
      apps.runHook(for: event, app: app, pid: pid, command: command, workingDirectory: directory)
    case .runCommand(let app, let pid, let run, let command, let directory, let timeout):
      apps.runCommand(run, app: app, pid: pid, command: command, workingDirectory: directory, timeout: timeout)
    case .stateChanged(let app, let from, let to, let band): apps.stateChanged(app, from: from, to: to, band: band)
    case .recordExit(let record): apps.recordExit(record)
    case .forget(let app): apps.forget(app)
    case .deliver(let app, let pid, let event): apps.channels.deliver(event, to: app, pid: pid)
    case .reply(let app, let pid, let requestID, let reply):
      apps.channels.reply(to: app, pid: pid, requestID: requestID, reply)
    case .appError(let app, let pid, let requestID, let code, let message):
      apps.channels.appError(to: app, pid: pid, requestID: requestID, code: code, message: message)
    case .sampleCPU(let refs): apps.sampleCPU(refs)
    case .checkTracer(let app, let pid): apps.checkTracer(of: app, pid: pid)
    case .watchdogHeld(let app, let pid, let event, let tracer):
      announcements.watchdogHeld(app: app, pid: pid, event: event, tracer: tracer)
    case .sampleDiskWrites(let refs): apps.diskWrites.sample(refs)
    case .readSignpostCounters(let app, let pid, let reading):
      apps.readSignpostCounters(of: app, pid: pid, reading: reading)
    case .sampleSuspendedMemory(let refs): apps.sampleSuspendedMemory(refs)
    case .diagnose(let app, let pid, let request): apps.diagnose(app, pid: pid, request)
    case .inspectLocks(let app, let pid, let stage): apps.inspectLocks(of: app, pid: pid, stage: stage)
    case .levelChanged(let from, let to, let available):
      announcements.levelChanged(from: from, to: to, available: available)
    case .restorationJudged(let app, let launch, let verdict, let saved, let restored):
      announcements.restorationJudged(
        app: app, launch: launch, verdict: verdict, savedDigest: saved, restoredDigest: restored)
    case .resumptionJudged(let app, let launch, let judgement):
      announcements.resumptionJudged(app: app, launch: launch, judgement: judgement)
    case .suspensionDeferred(let app, let pid, let locks):
      announcements.suspensionDeferred(app: app, pid: pid, locks: locks)
    case .socketsDefuncted(let app, let pid, let sockets, let problem):
      announcements.socketsDefuncted(app: app, pid: pid, sockets: sockets, problem: problem)
    case .signposted(let app, let pid, _, let name, let phase):
      announcements.signposted(app: app, pid: pid, name: name, phase: phase)
    case .acknowledged(let app, let pid, let event): announcements.acknowledged(app: app, pid: pid, event: event)
    }
  }
}
