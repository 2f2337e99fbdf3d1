import JetsamValues

/// Everything the policy remembers about one app; ``AppStatus`` is its public view.
struct TrackedApp: Sendable {
  let name: String
  var bandFloor: Band?
  var acknowledgements: AcknowledgementMode = .auto
  var hooks: [AppEventKind: AppHook] = [:]
  /// Launched by a request, not declared in the config (see ``PolicyConfig/rememberedEndedApps``).
  var adHoc = false
  /// What holding a file lock at suspension costs it.
  var lockedFiles = LockedFileRule()
  /// How its process is started (nil: not known, so it cannot be launched).
  var launchSpec: LaunchSpec?
  /// Settings a reload gave it while it ran: they apply from its next launch.
  var nextSettings: AppSettings?
  var state: LifecycleState = .notRunning
  var launch: Int
  var stateEnteredAt: Instant
  var bandEnteredAt: Instant

  // The current process (cleared when it ends).

  var pid: Int32?
  var spawnedAt: Instant?
  /// Whether the pending launch goes to the foreground once spawned.
  var launchesToForeground = false
  /// Order of arrival in the foreground: when the slots are full the lowest number leaves first.
  var foregroundArrival = 0
  /// When the current background stint's grace runs out and the app is suspended.
  var graceDeadline: Instant?
  /// The kill we asked for, with the pressure when it was decided; it also keeps jetsam from choosing the app
  /// (again).
  var killInFlight: KillInFlight?
  var requestedKill: RequestedKill? { killInFlight?.kill }
  /// The jetsam snapshot taken when the app was chosen as a victim.
  var jetsamSnapshot: [SnapshotEntry]?
  /// For an app jetsam suspended on its way to a kill (iOS's escalation): how long it had run in the background.
  var backgroundSecondsBeforePressureSuspension: Double?
  /// When a launch after a kill or crash that left a saved digest must have reported what it restored.
  var restorationDeadline: Instant?
  /// That deadline passed with nothing restored reported.
  var restorationLost = false
  /// Whether we sent SIGTERM to this process.
  var sentTerminate = false
  /// When an unanswered SIGTERM escalates to SIGKILL.
  var terminateDeadline: Instant?
  /// The lock check the app's suspension waits for (before its processes stop), or the one after they stopped.
  var lockCheck: LockCheckStage?
  /// When a pending suspension counts as incomplete (its processes have not all stopped by then).
  var suspendDeadline: Instant?
  /// The suspend timed out and the processes have not all stopped since.
  var suspendIncomplete = false
  /// How many times another process continued it while suspended (this launch).
  var continuedByOthers = 0
  /// The processes of this launch whose crash was diagnosed (each at most once).
  var crashesDiagnosed: Set<Int32> = []
  /// When our SIGKILL went out, and the memory the app had charged then.
  var killSignalledAt: Instant?
  var memoryAtKill: Int64?

  // What the app said about its state (kept in the exit record, handed to the next launch).

  var summary: String?
  /// The digest the previous launch saved, and what this launch saved and restored.
  var previousDigest: String?
  var savedDigest: String?
  var restoredDigest: String?
  /// When this launch last reported a saved digest, and how long it said that state stays current.
  var savedAt: Instant?
  var savedValidFor: Duration?
  /// The verdict of this launch's resumptions: the first stale one, else the latest.
  var resumption: ResumptionJudgement?

  // The current stay away from the foreground (for the return's events).

  /// When the app last left the foreground (or launched into the background); nil once it is back.
  var awaySince: Instant?
  /// How long it has been suspended since then.
  var suspendedWhileAway: Duration = .zero

  // The app's channel.

  /// Whether the app speaks the protocol, so that its acknowledgements are watched.
  var speaksProtocol = false
  /// The id the next lifecycle event gets.
  var nextEventID = 1
  /// Events sent and not yet acknowledged, by id; those with a deadline are watched.
  var pendingAcks: [Int: PendingAck] = [:]
  /// Open background tasks: id → name.
  var backgroundTasks: [Int: String] = [:]
  /// The open tasks of kind `processing` (exempt while the device is idle and charging).
  var processingTasks: Set<Int> = []
  var nextTaskID = 1
  /// The start of the current background stint (the background-task budget counts from here).
  var backgroundSince: Instant?
  /// Whether backgroundTaskWillExpire went out in this stint.
  var expiryWarned = false
  /// The background grace ran out while the app was busy (tasks, unacknowledged events): suspend it once idle.
  var suspendWhenIdle = false
  /// The willTerminate event whose acknowledgement (or deadline) lets the SIGTERM go out.
  var terminateAfterEvent: Int?

  // The CPU monitor.

  /// The app's CPU watch while its state has a budget.
  var cpuWatch: CPUWatch?

  init(name: String, bandFloor: Band?, launch: Int, at instant: Instant) {
    self.name = name
    self.bandFloor = bandFloor
    self.launch = launch
    self.stateEnteredAt = instant
    self.bandEnteredAt = instant
  }

  /// Takes `settings` for its next launch.
  mutating func apply(_ settings: AppSettings) {
    launchSpec = settings.launch
    bandFloor = settings.bandFloor
    acknowledgements = settings.acknowledgements
    hooks = settings.hooks
    adHoc = settings.adHoc
    lockedFiles = settings.lockedFiles
    nextSettings = nil
  }

  /// The settings in force (those a reload gave it apply from its next launch).
  var settings: AppSettings {
    AppSettings(
      launch: launchSpec, bandFloor: bandFloor, acknowledgements: acknowledgements, hooks: hooks, adHoc: adHoc,
      lockedFiles: lockedFiles)
  }

  /// The effective band: the state's natural band lifted by the floor; a dead app has no band to protect.
  var band: Band {
    guard state.isRunning else { return .idle }
    return max(Band.natural(for: state), bandFloor ?? .idle)
  }

  /// Forgets everything about the process that just ended.
  mutating func forgetProcess() {
    pid = nil
    spawnedAt = nil
    launchesToForeground = false
    graceDeadline = nil
    killInFlight = nil
    jetsamSnapshot = nil
    backgroundSecondsBeforePressureSuspension = nil
    restorationDeadline = nil
    restorationLost = false
    sentTerminate = false
    terminateDeadline = nil
    speaksProtocol = false
    nextEventID = 1
    pendingAcks = [:]
    backgroundTasks = [:]
    processingTasks = []
    nextTaskID = 1
    backgroundSince = nil
    expiryWarned = false
    suspendWhenIdle = false
    terminateAfterEvent = nil
    cpuWatch = nil
    suspendDeadline = nil
    suspendIncomplete = false
    lockCheck = nil
    continuedByOthers = 0
    crashesDiagnosed = []
    killSignalledAt = nil
    memoryAtKill = nil
    previousDigest = nil
    savedDigest = nil
    restoredDigest = nil
    savedAt = nil
    savedValidFor = nil
    resumption = nil
    awaySince = nil
    suspendedWhileAway = .zero
    // The summary stays: it is the app's, handed to its next launch through the exit record.
  }

  /// Drops every open background task (the app is on its way out, or being suspended for pressure).
  mutating func endAllBackgroundTasks() {
    backgroundTasks = [:]
    processingTasks = []
  }

  /// Whether the app is in the middle of something the background grace must not cut short.
  var isBusy: Bool {
    !backgroundTasks.isEmpty || pendingAcks.values.contains { $0.deadline != nil }
  }

  var status: AppStatus {
    var status = AppStatus(
      name: name, state: state, band: band, bandFloor: bandFloor, pid: pid, launch: launch,
      stateEnteredAt: stateEnteredAt, bandEnteredAt: bandEnteredAt, spawnedAt: spawnedAt)
    status.suspendIncomplete = suspendIncomplete
    status.continuedByOthers = continuedByOthers
    status.summary = summary
    status.previousDigest = previousDigest
    status.savedDigest = savedDigest
    status.restoredDigest = restoredDigest
    status.restorationLost = restorationLost
    status.resumption = resumption
    status.savedAt = savedAt
    status.savedValidUntil = savedAt.flatMap { at in savedValidFor.map { at.advanced(by: $0) } }
    status.awaySince = awaySince
    status.restorationDeadline = restorationDeadline
    status.killInFlight = killInFlight
    return status
  }
}

/// A lifecycle event waiting for the app's acknowledgement.
///
/// An app handles its events one after another, as UIKit calls the delegate in order: an event's watchdog starts
/// only when every earlier watched event has been acknowledged, so a hang is blamed on the handler it is in,
/// and each handler gets its whole allowance.
struct PendingAck: Sendable, Equatable {
  var kind: AppEventKind
  /// How long the handler may take, from when it could start.
  var allowance: Duration
  /// A command hook answers for the event, so it is watched whether or not the app speaks the protocol.
  var answeredByHook: Bool
  /// No longer watched: sent before the app was stopped (a stopped app cannot answer), or while it is on its way
  /// out. A late acknowledgement is still taken.
  var waived = false
  /// When its handler could start (the earlier events were acknowledged); nil while it waits behind them, or is
  /// not watched.
  var since: Instant?

  /// When the watchdog fires; nil while it is not running.
  var deadline: Instant? { since?.advanced(by: allowance) }
}

extension LifecycleState {
  /// Whether an app in this state occupies one of the foreground slots (a launching app does not yet).
  var holdsForegroundSlot: Bool { self == .foregroundActive || self == .foregroundInactive }
}
