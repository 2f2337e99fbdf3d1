import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import JetsamWire

/// Carries out the policy's actions on real apps — spawn, stop, continue, kill, signal, hooks, records — and
/// reports what came of them (`spawned`, `suspendCompleted`, `killSignalled`, `exited`, `exitRecorded`…) through the
/// ``ResultInbox`` it is handed at init, the daemon's one way in for results.
///
/// It decides nothing: every choice it acts on came in an action. It works through small seams (cgroups,
/// processes, signals, records, the loop) so that how it carries out actions can be tested with recording fakes.
/// Everything runs on the loop's thread and nothing in it waits: slow steps (memory release, a process that
/// will not stop, a cgroup that will not go) continue on timers, watches or helper threads.
final class AppSupervisor {
  /// The seams the supervisor works through.
  struct Seams {
    var loop: any LoopScheduling
    var cgroups: any CgroupBackend
    var launcher: any ProcessLauncher
    var signals: any SignalSender
    var records: any RecordSink
    var releaser: any MemoryReleaser
    /// Whom an app runs as: the user database, asked off the loop.
    var users: any UserDirectory
    /// Watches a channel descriptor, calling back with each line; the real one is ``AppChannel``.
    var openChannel: (FileDescriptor, @escaping (LineStream.Input) -> Void) throws -> any AppChannelEndpoint
    /// The oom_score_adj of a band: the policy's mapping.
    var oomScore: (Band) -> Int32
    /// Where each kill's decision is noted before its signal goes out (nil: nowhere).
    var killJournal: KillJournal? = nil
    /// Takes and keeps diagnostics (nil: none are taken, as in the supervisor's own tests).
    var diagnostics: DiagnosticsService? = nil
  }

  private let seams: Seams
  /// How apps are started and their ends learnt (re-adoption asks it too).
  var launcher: any ProcessLauncher { seams.launcher }
  var loop: any LoopScheduling { seams.loop }
  /// The kills noted before their signals (re-adoption reads what the last jetsamd left; the state keeper empties it).
  var killJournal: KillJournal? { seams.killJournal }
  let log: Logger
  /// Where what came of the actions goes: the daemon's one way in for results.
  let inbox: any ResultInbox
  /// The oom_score_adj of a band (the policy's mapping).
  func oomScore(_ band: Band) -> Int32 { seams.oomScore(band) }
  /// How apps and their hooks are described to the launcher: environment, working directory, log, namespaces.
  let requests: SpawnRequests
  /// The apps' channels: lines in, events, replies and errors out.
  let channels: AppChannels
  /// Takes and keeps diagnostics (nil: none are taken, as in the supervisor's own tests).
  var diagnostics: DiagnosticsService? { seams.diagnostics }

  /// The running apps, which its parts look up too.
  let apps = RunningApps()
  /// Running apps by name.
  var processes: [String: AppProcess] { apps.byName }
  /// The exit records not durable yet, and the cgroups of their apps, held until they are.
  let records: RecordQueue
  /// Writes each app's band to its processes' oom_score_adj.
  private lazy var scores = OOMScoreWriter(
    signals: seams.signals, afterStops: suspender.afterStopChecks, processes: { [apps] name in apps[name] },
    score: seams.oomScore)
  /// Suspends and resumes apps, and watches that they stop and stay stopped.
  let suspender: AppSuspender
  private let reaper: CgroupReaper
  /// Launches apps, and knows which launches are in flight.
  let launches: AppLaunches
  lazy var hooks = HookRunner(loop: loop, launcher: seams.launcher, signals: seams.signals, requests: requests)
  private let locks: LockInspector
  /// Watches the running apps, learns how they ended and reports them once wholly gone.
  let ends: AppEndWatcher
  /// Reads how much apps have written, for the disk-write monitor.
  let diskWrites: DiskWriteSampler

  init(
    seams: Seams, inbox: any ResultInbox, log: Logger, suspendMode: SuspendConfig.Mode, stateDirectory: String
  ) {
    self.seams = seams
    self.inbox = inbox
    self.log = log
    requests = SpawnRequests(stateDirectory: stateDirectory)
    channels = AppChannels(loop: seams.loop, log: log, apps: apps, inbox: inbox, open: seams.openChannel)
    reaper = CgroupReaper(loop: seams.loop, log: log)
    let locks = LockInspector()
    self.locks = locks
    suspender = AppSuspender(
      loop: seams.loop, signals: seams.signals, log: log, mode: suspendMode, apps: apps, inbox: inbox,
      locksHeld: { apps in locks.locksNow(of: apps.map { app in (app.name, { try app.cgroup.processIDs() }) }) })
    ends = AppEndWatcher(
      loop: seams.loop, launcher: seams.launcher, log: log, apps: apps, suspender: suspender, inbox: inbox)
    records = RecordQueue(loop: seams.loop, sink: seams.records, log: log, reaper: reaper, inbox: inbox)
    diskWrites = DiskWriteSampler(
      loop: seams.loop, apps: apps, inbox: inbox, afterStops: suspender.afterStopChecks)
    launches = AppLaunches(
      seams: seams, log: log, records: records, reaper: reaper, requests: requests, channels: channels, ends: ends,
      apps: apps, inbox: inbox)
    seams.launcher.exitKnown = { [unowned self] pid in
      self.hooks.commands.exitKnown(pid)
      guard let app = self.apps.withMainProcess(pid) else { return }
      self.ends.mainProcessEnded(app)
    }
    seams.launcher.childContinued = { [unowned self] pid in
      guard let app = self.apps.withMainProcess(pid) else { return }
      self.suspender.continuedByOthers(app)
    }
  }

  // MARK: Small actions (the rest have their own sections)

  /// The app's processes did not all stop in time; the policy counts it suspended all the same.
  func suspendIncomplete(_ name: String) {
    log.warning("\(name)'s processes did not all stop in time; it counts as suspended (incomplete)")
  }

  /// An ended ad-hoc app the policy no longer remembers; a running one (launched again) is kept.
  func forget(_ name: String) {
    guard apps[name] == nil else { return }
    launches.forgetFailure(of: name)
  }

  /// Reports one observation or result to the policy.
  func report(_ event: PolicyEvent) { inbox.post(.observed([event])) }

  /// Called once a batch of actions is carried out: the suspends of the batch are checked together.
  func finishBatch() {
    suspender.checkNow()
    locks.forgetTurn()
  }

  /// Whether app `name`'s processes were told to stop and are not all seen stopped yet.
  func isStopPending(_ name: String) -> Bool { suspender.isPending(name) }

  /// The launch and reason of app `name`'s last failed spawn.
  func spawnFailure(of name: String) -> (launch: Int, message: String)? { launches.failures[name] }

  /// The app's process if it is the one with `pid`.
  func process(_ name: String, pid: Int32) -> AppProcess? { apps.process(name, pid: pid) }

  // MARK: Kill, terminate, signals, hooks

  func kill(_ name: String, pid: Int32, reason: ExitReason, decision: KillInFlight) {
    guard let app = process(name, pid: pid), app.end == nil, !app.killed else { return }
    // A diagnostic asked for just before (a hang's stacks) is taken first: after the SIGKILL there is nothing left
    // to look at. The capture has a time budget; the kill goes out once it is done.
    if let diagnostics, diagnostics.isCapturing(app: name, pid: pid) {
      return diagnostics.whenCaptured(app: name, pid: pid) { [weak self] in
        self?.kill(name, pid: pid, reason: reason, decision: decision)
      }
    }
    // Who killed it outlives this daemon from here on, even if it dies before the state file is saved.
    seams.killJournal?.record(app: name, pid: pid, launch: app.launch, decision: decision)
    app.killed = true
    suspender.forget(name)
    let memory = try? app.cgroup.memoryUsage()
    // The main process first (its memory is usually the bulk), then everything else in the cgroup.
    try? seams.signals.send(.kill, pidfd: app.pidfd)
    let signalled = loop.now()
    do { try app.cgroup.killAll() } catch { log.error("cgroup.kill for \(name): \(error)") }
    // The app is reported only once the release has returned, or the next pressure reading could still count
    // memory that is on its way back.
    app.releaseSource = seams.releaser.release(pidfd: app.pidfd) { [unowned self] in
      guard let app = self.apps[name], app.pid == pid else { return }
      app.releaseSource?.cancel()
      app.releaseSource = nil
      self.ends.reportIfGone(app)
    }
    var figures: [String: Int64] = [:]
    if let memory { figures[name] = memory }
    for entry in decision.snapshot ?? [] where entry.name != name {
      if let other = try? apps[entry.name]?.cgroup.memoryUsage() { figures[entry.name] = other }
    }
    log.notice("killing \(name) pid \(pid) (\(reason.rawValue), \(ByteSize.format(memory ?? 0)))")
    report(.killSignalled(app: name, pid: pid, at: signalled, memory: figures))
  }

  func terminate(_ name: String, pid: Int32) {
    guard let app = process(name, pid: pid) else { return }
    // A stopped process cannot run its SIGTERM handler: let it run to end itself.
    suspender.forget(name)
    try? suspender.continueEveryProcess(of: app)
    try? seams.signals.send(.terminate, pidfd: app.pidfd)
  }

  func signalEveryProcess(of name: String, pid: Int32, _ signal: Signal) {
    guard let app = process(name, pid: pid) else { return }
    for pid in (try? app.cgroup.processIDs()) ?? [] { seams.signals.send(signal, to: pid) }
  }

  /// Runs `command`, the app's hook for `event`, from `workingDirectory`; its end answers the event, after how it
  /// ended is told for the exit record. No timeout of its own: the event's deadline bounds it.
  func runHook(for event: AppEvent, app name: String, pid: Int32, command: [String], workingDirectory: String?) {
    guard let app = process(name, pid: pid) else { return }
    let run = "hook \(event.kind.rawValue)"
    hooks.start(
      command, for: event.kind, app: name, workingDirectory: workingDirectory, cgroup: app.cgroup,
      oomScoreAdj: oomScore(.foreground), timeout: nil, stdoutTakesErrors: true
    ) { [unowned self] outcome in
      // Every end answers the event, one that could not even start too (at once, not at the event's deadline).
      if let failure = outcome.failure {
        self.log.error("\(name)'s \(event.kind.rawValue) hook \(command.joined(separator: " ")) \(failure)")
      }
      self.inbox.post(
        .observed([
          .commandRunObserved(app: name, pid: pid, run: Self.record(run, command, outcome), at: self.loop.now()),
          .hookEnded(app: name, pid: pid, event: event.id, at: self.loop.now()),
        ]))
    }
  }

  // MARK: Diagnostics

  /// Has the diagnostic taken of the process it is about: the crashed one (checked once more to be in the app's
  /// cgroup, now, through a pidfd) or the app's main process.
  func diagnose(_ name: String, pid: Int32, _ request: DiagnosticRequest) {
    guard let app = process(name, pid: pid) else { return }
    // A crashed process waits in the crash handler until its stacks are taken (or there is nothing to take).
    let crashSocket = app.crashSocket
    let done: (() -> Void)? = if case .crash = request { { crashSocket?.acknowledge() } } else { nil }
    guard let diagnostics else {
      done?()
      return
    }
    let target: FileDescriptor
    do {
      if case .crash(let crash) = request {
        target = try CrashReportCheck.openTarget(pid: crash.pid, in: app.cgroup)
      } else {
        target = try app.pidfd.duplicate()
      }
    } catch {
      log.warning("\(name) pid \(pid): no diagnostic taken: \(error)")
      done?()
      return
    }
    diagnostics.capture(app: name, pid: pid, launch: app.launch, request, target: target, then: done)
  }

  // MARK: Locked files

  /// Lists the file locks of every process of the app and reports them (none if it is gone).
  func inspectLocks(of name: String, pid: Int32, stage: LockCheckStage) {
    let held = locks.locks(ofApp: name) { try process(name, pid: pid)?.cgroup.processIDs() ?? [] }
    report(.locksInspected(app: name, pid: pid, locks: held, stage: stage, at: loop.now()))
  }

  // MARK: CPU

  /// Reads the CPU time of each app's cgroup (one `pread` of a counter kept open) and reports them together.
  func sampleCPU(_ apps: [AppProcessRef]) {
    let (samples, at) = readEach(apps) { ref, cgroup in
      CPUSample(app: ref.app, pid: ref.pid, cpuSeconds: try cgroup.cpuSeconds())
    }
    report(.cpuSampled(samples, at: at))
  }

  /// Reads each suspended app's memory (one `pread` of its cgroup's kept usage file, which never waits on the
  /// app) and reports them in one `suspendedMemorySampled`, once the stops under way are seen (``AfterStopChecks``).
  func sampleSuspendedMemory(_ apps: [AppProcessRef]) {
    suspender.afterStopChecks.run { [unowned self] in
      let (samples, at) = self.readEach(apps) { ref, cgroup in
        SuspendedMemorySample(app: ref.app, pid: ref.pid, bytes: try cgroup.memoryUsage())
      }
      self.report(.suspendedMemorySampled(samples, at: at))
    }
  }

  /// One reading of each app still running as the process named (an app whose counter cannot be read is left
  /// out), and when they were taken.
  private func readEach<Sample>(
    _ apps: [AppProcessRef], _ read: (AppProcessRef, any AppCgroupControl) throws -> Sample
  ) -> ([Sample], Instant) {
    let at = loop.now()
    var samples: [Sample] = []
    samples.reserveCapacity(apps.count)
    for ref in apps {
      guard let app = process(ref.app, pid: ref.pid), let sample = try? read(ref, app.cgroup) else { continue }
      samples.append(sample)
    }
    return (samples, at)
  }

  /// Reads whether a tracer is attached to app `name`'s main process (`TracerPid` in its status: one read of a
  /// kernel-generated file, which does not wait on the process) and reports it.
  func checkTracer(of name: String, pid: Int32) {
    let status = process(name, pid: pid).flatMap { _ in try? ProcessStatus.read(pid: pid) }
    let tracer = status?["TracerPid"].flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil }
    report(.tracerChecked(app: name, pid: pid, tracer: tracer, at: loop.now()))
  }

  // MARK: Bands

  func stateChanged(_ name: String, from: LifecycleState, to: LifecycleState, band: Band) {
    log.debug("\(name): \(from.rawValue) → \(to.rawValue) (band \(band))")
    guard apps[name] != nil, to.isRunning else { return }
    scores.bandChanged(name, to: band)
  }

  // MARK: Exits

  /// Records that an app ended while no daemon watched it: reported once its cgroup (if any) is empty.
  func reportEnd(of app: AppProcess, _ end: ProcessEnd) {
    ends.watch(app)
    ends.endedUnwatched(app, end)
  }

  /// Completes a record with what the shell measures, writes it durably, then reports it.
  func recordExit(_ decided: ExitRecord) {
    var record = decided
    record.time = AppSupervisor.timestamp()
    let ended = process(record.app, pid: record.pid)
    if let app = ended {
      let measured = (try? app.cgroup.memoryUsage()) ?? 0
      // A killed app's figure is what it held when the SIGKILL went out (the policy has it).
      if record.cause.killSignalledNanoseconds == nil { record.usage.memoryBytes = measured }
      record.usage.peakMemoryBytes = max((try? app.cgroup.peakMemory()) ?? 0, record.usage.memoryBytes)
      record.usage.memoryLimitBytes = try? app.cgroup.memoryLimit()
      record.usage.cpuSeconds = (try? app.cgroup.cpuSeconds()) ?? 0
      // Where the cgroup counts its I/O the launch's total is read now; elsewhere the processes are gone, and the
      // main process's counters as it ended (when jetsamd reaped it) or the monitor's last reading (the policy's)
      // stand, whichever is more.
      let counted = (try? app.cgroup.storageBytesWritten()).flatMap { $0 } ?? app.writtenAtEnd
      if let written = counted, let known = record.launchMetrics {
        record.launchMetrics?.bytesWritten = max(written, known.bytesWritten ?? 0)
      }
      if let taken = diagnostics?.takeWritten(app: record.app, pid: record.pid), !taken.isEmpty {
        record.evidence.diagnostics = taken
      }
      if app.channel != nil { inbox.post(.channelClosed(app: record.app)) }
      app.close()
      hooks.forget(record.app)
      requests.forgetUser(of: record.app)
      suspender.forget(record.app)
      apps.remove(record.app)
      scores.forget(record.app)
    }
    // The app's cgroup stays until its record is durable (a successor after a crash finds it, or the record in the
    // state file).
    records.add(record, holding: ended?.cgroup)
  }

  static func timestamp(_ date: Date = Date()) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }

  // MARK: Adoption and shutdown

  /// Takes over a running app a previous daemon launched.
  func adopt(_ app: AppProcess, channel: FileDescriptor?) {
    app.adopted = true
    ends.watch(app)
    if let channel { channels.attach(channel, to: app) }
  }

  /// Whether every process of `cgroup` is stopped (SIGSTOP or frozen): what a re-adopted app really is.
  func allStopped(_ cgroup: any AppCgroupControl) -> Bool {
    if (try? cgroup.events().frozen) == true { return true }
    let pids = (try? cgroup.processIDs()) ?? []
    return !pids.isEmpty && pids.allSatisfy { seams.signals.state(of: $0) == "T" }
  }

  /// Kills what is left in a cgroup no app owns, and removes it.
  func removeLeftover(_ cgroup: any AppCgroupControl) {
    try? cgroup.killAll()
    reaper.remove(cgroup)
  }

  /// Calls `then` once every cgroup on its way out is gone (at shutdown, before the device goes).
  func whenCgroupsRemoved(_ then: @escaping () -> Void) { reaper.whenIdle(then) }

  /// Re-caps a running app (after a reload).
  func setLimits(of name: String, pid: Int32, _ limits: AppLimits) {
    guard let app = process(name, pid: pid) else { return }
    do {
      try app.cgroup.setLimits(limits)
    } catch {
      log.error("new caps for \(name): \(error)")
    }
  }
}
