import JetsamWire

/// Everything that can happen to the policy: requests from users, results of the shell's I/O, kernel
/// observations, and the passing of time. Each carries the instant it happened.
public enum PolicyEvent: Sendable, Equatable {
  // MARK: Requests (may be refused with a PolicyError; the state is then unchanged)

  /// Declares an app (or updates it while not running): its settings (band lift, how its lifecycle events are
  /// acknowledged, hooks, locked-file rule) and, after a daemon restart, how many launches it already had (the
  /// policy never counts below the last recorded exit's launch).
  case configure(app: String, settings: AppSettings, launchCount: Int)
  /// Cold-start an app that is not running. With `foreground` it takes a foreground slot (the oldest
  /// foreground app moves to the background if the slots are full); otherwise it launches into the background.
  case launch(app: String, foreground: Bool, at: Instant)
  /// Bring a running app to the foreground (resuming it if suspended), or cold-start it if not running.
  case activate(app: String, at: Instant)
  /// Move a foreground app to the background.
  case moveToBackground(app: String, at: Instant)
  /// Suspend a background (or foreground, via background) app.
  case suspend(app: String, at: Instant)
  /// Resume a suspended app into the background.
  case resume(app: String, at: Instant)
  /// Kill an app now and record the exit with `reason` (a user reproducing an exit on demand).
  case kill(app: String, reason: ExitReason, at: Instant)
  /// End an app gracefully: SIGTERM, then SIGKILL when `PolicyConfig.terminateGrace` runs out.
  case terminate(app: String, at: Instant)
  /// Force a pressure level regardless of measurements (`nil` returns to measured levels).
  case forceLevel(PressureLevel?, at: Instant)
  /// The emulated device is idle and charging (or no longer): `processing` background tasks are exempt from the
  /// background budget and the CPU monitor while it is.
  case setCharging(Bool, at: Instant)
  /// Replace the tunables (a config reload); they apply from the next event (deadlines already set keep
  /// their time).
  case reconfigure(PolicyConfig)

  /// Takes over an app that kept running while jetsamd restarted, with what the previous daemon knew
  /// (its state, band times and launch number); it speaks no protocol until it says hello again.
  case adopt(app: AdoptedApp, at: Instant)

  // MARK: Results of the shell's actions

  /// The process for the app's pending launch runs (inside its cgroup) with this pid.
  case spawned(app: String, pid: Int32, at: Instant)
  /// The launch failed before the app ran; nothing ran outside the cgroup.
  case spawnFailed(app: String, message: String, at: Instant)
  /// What `inspectLocks` found: the file locks the app's processes hold (empty: none), at `stage`.
  case locksInspected(app: String, pid: Int32, locks: [HeldLock], stage: LockCheckStage, at: Instant)
  /// The last process of a suspending app has stopped, at `at`: suspended time counts from here.
  case suspendCompleted(app: String, at: Instant)
  /// Something other than jetsamd continued (SIGCONT) the stopped main process `pid` of a suspended app, seen at
  /// `at`: the app runs although it counts as suspended.
  case continuedWhileSuspended(app: String, pid: Int32, at: Instant)
  /// The SIGKILL of a `kill` action went out at `at`; `memory` is what each app of the kill's snapshot (or
  /// the victim alone) had charged at that moment, by name.
  case killSignalled(app: String, pid: Int32, at: Instant, memory: [String: Int64])
  /// A `recordExit` record is durable, as written (with the shell's measurements and wall-clock time). At
  /// start-up the shell also feeds each app's last record from the log, so launch reasons survive restarts.
  case exitRecorded(ExitRecord)
  /// The command hook run for event `event` of the app has ended (or could not start): the event is answered.
  case hookEnded(app: String, pid: Int32, event: Int, at: Instant)

  // MARK: Kernel observations

  /// A fresh reading of the memory available to the device.
  case memorySampled(available: Int64, at: Instant)
  /// Jetsam's crash handler in one of the app's processes reports a fatal signal and waits for its stacks to be taken.
  case crashReported(app: String, pid: Int32, crash: CrashReport, at: Instant)
  /// The CPU time of the apps a `sampleCPU` action named, read at `at` (an app whose counter could not be read
  /// is left out).
  case cpuSampled([CPUSample], at: Instant)
  /// The app's main process ended and its cgroup is empty. `oomKilled` is true when the kernel's OOM
  /// killer acted in the app's own cgroup (its `oom_kill` counter rose).
  case exited(app: String, pid: Int32, end: ProcessEnd, oomKilled: Bool, at: Instant)

  /// A message from the app's own channel (or from the shell on its behalf, for hooks). `pid` names the
  /// process whose channel it came from: a message from an earlier launch is ignored.
  case appMessage(app: String, pid: Int32, message: AppMessage, at: Instant)

  // MARK: Time

  /// The instant `JetsamPolicy.nextDeadline` named (or later) has come.
  case tick(at: Instant)
}

/// An app found running at start-up, as the previous daemon left it.
public struct AdoptedApp: Sendable, Equatable, Codable {
  public var name: String
  public var pid: Int32
  public var launch: Int
  public var state: LifecycleState
  public var bandFloor: Band?
  public var stateEnteredAt: Instant
  public var bandEnteredAt: Instant
  public var spawnedAt: Instant
  /// Whether the new daemon found every process of the app stopped (nil: not looked at). The processes are
  /// the truth: the state the previous daemon saved may lag its last moments.
  public var observedStopped: Bool?
  /// The app's state summary and digests, as the previous daemon knew them.
  public var summary: String?
  public var previousDigest: String?
  public var savedDigest: String?
  public var restoredDigest: String?
  /// When this launch last reported a saved digest and until when it said that state stays current, and the
  /// verdict of its returns to the foreground so far.
  public var savedAt: Instant?
  public var savedValidUntil: Instant?
  public var resumption: ResumptionJudgement?
  /// When the app last left the foreground, if it has not come back yet.
  public var awaySince: Instant?
  /// When this launch must have reported what it restored (after a kill or crash that left a digest), or whether
  /// that deadline already passed.
  public var restorationDeadline: Instant?
  public var restorationLost: Bool?
  /// The kill the previous daemon sent and whose exit it did not see.
  public var killInFlight: KillInFlight?

  public init(
    name: String, pid: Int32, launch: Int, state: LifecycleState, bandFloor: Band?, stateEnteredAt: Instant,
    bandEnteredAt: Instant, spawnedAt: Instant
  ) {
    self.name = name
    self.pid = pid
    self.launch = launch
    self.state = state
    self.bandFloor = bandFloor
    self.stateEnteredAt = stateEnteredAt
    self.bandEnteredAt = bandEnteredAt
    self.spawnedAt = spawnedAt
  }
}

/// What the policy decides the shell must do, in order.
public enum PolicyAction: Sendable, Equatable {
  /// Start the app's process in its cgroup; answer with `spawned` or `spawnFailed`. `previousExit` is
  /// what the launch is told of the app's last exit (nil: a fresh launch).
  case spawn(app: String, launch: Int, previousExit: PreviousExit? = nil)
  /// Stop every process of the app (SIGSTOP or freezer); answer with `suspendCompleted` once every process
  /// is seen stopped. Until then the shell keeps watching; the policy's suspend timeout decides what an
  /// app that does not stop in time counts as (``suspendIncomplete(app:pid:)``).
  case suspend(app: String, pid: Int32)
  /// The app's processes did not all stop within the suspend timeout: it counts as suspended from the
  /// request (first in line for jetsam, as any suspended app), marked incomplete until they do stop.
  case suspendIncomplete(app: String, pid: Int32)
  /// Continue every process of the app.
  case resume(app: String, pid: Int32)
  /// Kill the app's whole cgroup now, then answer with `killSignalled` (the instant and the memory of the
  /// victim and of every app in `snapshot`, which is set for jetsam (pressure) kills).
  case kill(app: String, pid: Int32, reason: ExitReason, snapshot: [SnapshotEntry]?)
  /// Ask the app to end (SIGTERM to its main process).
  case terminate(app: String, pid: Int32)
  /// The app moved to a new state and band (the shell follows with oom_score_adj, notifications).
  case stateChanged(app: String, from: LifecycleState, to: LifecycleState, band: Band)
  /// The device's pressure level changed.
  case levelChanged(from: PressureLevel, to: PressureLevel, available: Int64)
  /// Write this exit record durably (after filling in the measured fields), then report it.
  case recordExit(ExitRecord)
  /// A launch's restoration was judged (journal and log; the verdict is also kept in that launch's exit record).
  case restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?,
    restoredDigest: String?)
  /// A return to the foreground was judged (journal and log; also kept in that launch's exit record).
  case resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement)
  /// The ended ad-hoc app is no longer remembered (``PolicyConfig/rememberedEndedApps``): drop what is kept of it.
  case forget(app: String)
  /// Send a lifecycle event on the app's channel.
  case deliver(app: String, pid: Int32, event: AppEvent)
  /// List the file locks the app's processes hold (POSIX, flock and OFD) and answer with `locksInspected`.
  case inspectLocks(app: String, pid: Int32, stage: LockCheckStage)
  /// A suspension was put off because the app holds file locks (the `defer` rule): it stays in the background and
  /// is tried again at `retryAt`'s grace (log, journal).
  case suspensionDeferred(app: String, pid: Int32, locks: [HeldLock])
  /// Read the CPU time of each of these apps' cgroups and answer with one `cpuSampled`.
  case sampleCPU([AppProcessRef])
  /// Take a diagnostic of the app's process now (its call stacks, kept durably). A `kill` of the same process that
  /// follows waits for the capture (within its time budget), so that a hang's stacks show where it hung.
  case diagnose(app: String, pid: Int32, DiagnosticRequest)
  /// The app passed a signpost (publish it with the time it was handled; it changes nothing).
  case signposted(app: String, pid: Int32, launch: Int, name: String, phase: SignpostPhase)
  /// The app acknowledged lifecycle event `event` (its handler returned, or its command hook ended; in time or
  /// late): publish it, so that a watcher sees the handler end; it changes nothing.
  case acknowledged(app: String, pid: Int32, event: AppEventKind)
  /// Send `signal` to every process of the app (a signal hook).
  case signal(app: String, pid: Int32, signal: Signal)
  /// Run the app's command hook for `event`; answer with `hookEnded` when it ends.
  case runHook(app: String, pid: Int32, event: AppEvent)
  /// Answer the app's request `requestID`.
  case reply(app: String, pid: Int32, requestID: Int, AppReply)
  /// Tell the app a message of its could not be taken.
  case appError(app: String, pid: Int32, requestID: Int?, code: AppProtocolErrorCode, message: String)
}

/// A request the policy refuses, with a message for the user.
public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No app of that name has been configured or launched.
  case unknownApp(String)
  /// The request does not fit the app's current state (e.g. suspending a not-running app).
  case illegalTransition(app: String, from: LifecycleState, request: String)

  public var description: String {
    switch self {
    case .unknownApp(let name): "no app named \"\(name)\""
    case .illegalTransition(let app, let from, let request):
      "cannot \(request) \(app): it is \(from.rawValue)"
    }
  }
}

/// Tunables of the policy (the shell builds this from the config file).
public struct PolicyConfig: Sendable, Equatable {
  /// Pressure thresholds in bytes available to the device.
  public var thresholds: PressureThresholds
  /// How many apps may be in the foreground at once (1 on a phone).
  public var foregroundSlots: Int
  /// A background app is suspended after this long in the background; nil: never automatically.
  public var backgroundGrace: Duration?
  /// A jetsam victim that has not exited this long after its kill no longer blocks the next kill.
  public var killTimeout: Duration
  /// Time between SIGTERM and SIGKILL for a graceful terminate.
  public var terminateGrace: Duration
  /// Watchdog deadlines and background-task budgets of the app side.
  public var lifecycle: LifecycleTimings
  /// How long an app's processes may take to stop before its suspension counts as incomplete.
  public var suspendTimeout: Duration
  /// The lowest oom_score_adj apps may get (the daemon's own, unless it may go lower).
  public var oomScoreFloor: Int32
  /// iOS's escalation: a running background app that jetsam picks at urgent is first suspended (its background
  /// tasks warned and ended), then killed as a suspended app; false: killed while it runs. (At critical every
  /// victim is killed as it is.)
  public var suspendBeforeKill = true
  /// The CPU monitor's budgets per state (already scaled by the config's time scale).
  public var cpu = CPUMonitorConfig()
  /// How many ended ad-hoc apps (``AppSettings/adHoc``) are remembered, with their last exit; past it the one
  /// that ended longest ago is forgotten, so that launching ever new names cannot grow the daemon without bound.
  public var rememberedEndedApps = 1_000
  /// How many crash diagnostics one launch of an app gets (one per crashed process at most): a program whose children
  /// crash by the hundred costs a few captures, not a capture each.
  public var crashDiagnosesPerLaunch = 8

  public init(
    thresholds: PressureThresholds, foregroundSlots: Int = 1, backgroundGrace: Duration? = nil,
    killTimeout: Duration = .seconds(2), terminateGrace: Duration = .seconds(5),
    lifecycle: LifecycleTimings = LifecycleTimings(), suspendTimeout: Duration = .seconds(1),
    oomScoreFloor: Int32 = -1000
  ) {
    self.suspendTimeout = suspendTimeout
    self.oomScoreFloor = oomScoreFloor
    self.thresholds = thresholds
    self.foregroundSlots = foregroundSlots
    self.backgroundGrace = backgroundGrace
    self.killTimeout = killTimeout
    self.terminateGrace = terminateGrace
    self.lifecycle = lifecycle
  }
}

/// A read-only view of one app as the policy sees it (for `ps`, snapshots and the shell).
public struct AppStatus: Sendable, Equatable {
  public var name: String
  public var state: LifecycleState
  /// The effective band: the state's natural band, lifted by `bandFloor`.
  public var band: Band
  /// The configured lift, if any.
  public var bandFloor: Band?
  /// The main pid while running.
  public var pid: Int32?
  /// Launches so far (the current one's number while running).
  public var launch: Int
  /// When the app entered its current state.
  public var stateEnteredAt: Instant
  /// When the app entered its current band (for suspended apps: when its last process stopped).
  public var bandEnteredAt: Instant
  /// When the current process was spawned.
  public var spawnedAt: Instant?
  /// Whether the app's processes did not all stop within the suspend timeout (and have not since).
  public var suspendIncomplete = false
  /// How many times something other than jetsamd continued the app while it was suspended (this launch).
  public var continuedByOthers = 0
  /// The state summary the app last set (or its previous launch left).
  public var summary: String?
  /// The digest of the state the previous launch saved, and what this launch saved and restored.
  public var previousDigest: String?
  public var savedDigest: String?
  public var restoredDigest: String?
  /// Whether the launch deadline passed with nothing restored reported, after a kill or crash that left a digest.
  public var restorationLost = false
  /// Whether the app showed current state when it came back to the foreground (the first stale return of this
  /// launch, else the latest); nil until it reports `phase=resumed` with a saved `validFor` to judge against.
  public var resumption: ResumptionJudgement?
  /// When this launch last saved, until when it said that state stays current, and when the app last left the
  /// foreground if it is still away (kept across a daemon restart).
  public var savedAt: Instant?
  public var savedValidUntil: Instant?
  public var awaySince: Instant?
  /// When this launch must have reported what it restored, while that is still owed.
  public var restorationDeadline: Instant?
  /// The kill sent to the app whose exit has not been seen yet.
  public var killInFlight: KillInFlight?

  /// Whether this launch restored the state the previous one saved; nil when there is nothing to judge.
  public var restoration: RestorationVerdict? {
    guard let previousDigest else { return restoredDigest == nil ? nil : .unsaved }
    guard let restoredDigest else { return restorationLost ? .lost : .pending }
    return restoredDigest == previousDigest ? .match : .mismatch
  }

  public init(
    name: String, state: LifecycleState, band: Band, bandFloor: Band?, pid: Int32?, launch: Int,
    stateEnteredAt: Instant, bandEnteredAt: Instant, spawnedAt: Instant?
  ) {
    self.name = name
    self.state = state
    self.band = band
    self.bandFloor = bandFloor
    self.pid = pid
    self.launch = launch
    self.stateEnteredAt = stateEnteredAt
    self.bandEnteredAt = bandEnteredAt
    self.spawnedAt = spawnedAt
  }
}

extension PolicyEvent {
  /// When the event happened (every event but `configure` carries its instant).
  public var instant: Instant? {
    switch self {
    case .configure, .exitRecorded, .reconfigure: nil
    case .launch(_, _, let at), .activate(_, let at), .moveToBackground(_, let at), .suspend(_, let at),
      .resume(_, let at), .kill(_, _, let at), .terminate(_, let at), .forceLevel(_, let at), .setCharging(_, let at),
      .cpuSampled(_, let at), .crashReported(_, _, _, let at), .spawned(_, _, let at),
      .spawnFailed(_, _, let at), .suspendCompleted(_, let at), .locksInspected(_, _, _, _, let at),
      .continuedWhileSuspended(_, _, let at),
      .memorySampled(_, let at),
      .killSignalled(_, _, let at, _), .hookEnded(_, _, _, let at),
      .exited(_, _, _, _, let at), .appMessage(_, _, _, let at), .adopt(_, let at), .tick(let at):
      at
    }
  }
}
