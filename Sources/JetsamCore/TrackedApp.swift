import JetsamValues

/// Everything the policy remembers about one app; ``AppStatus`` is its public view and saved form.
///
/// What exists only in some states is kept where it exists only then: ``pendingLaunch`` from a launch request
/// until the spawn, ``process`` while a process runs. Nothing of a process outlives it but the app's ``summary``.
struct TrackedApp: Sendable {
  let name: String
  /// How it is started and run, as configured: launch spec, band lift, acknowledgements, hooks, ad hoc or not,
  /// locked files.
  @CopyOnWrite var settings: AppSettings
  /// Settings a reload gave it while it ran: they apply from its next launch. Boxed, and only when present: inline,
  /// this rarely set value would make every app's entry in the policy's dictionary 290 bytes larger, and a box
  /// holding nil would cost as much on the heap.
  @CopyOnWriteIfPresent var nextSettings: AppSettings? = nil
  var state: LifecycleState = .notRunning
  /// Launches so far (the current one's number while running).
  var launch: Int
  var stateEnteredAt: Instant
  var bandEnteredAt: Instant
  /// Order of arrival in the foreground: when the slots are full the lowest number leaves first.
  var foregroundArrival = 0
  /// The state summary the app last set: the app's own, kept when its process ends and handed to its next launch
  /// through the exit record.
  var summary: String?
  /// The launch asked for and not spawned yet (while `launching`).
  var pendingLaunch: PendingLaunch?
  /// The current process; nil while none runs.
  @CopyOnWrite var process: RunningProcess? = nil

  init(name: String, settings: AppSettings = AppSettings(launch: nil), launch: Int, at instant: Instant) {
    self.name = name
    self.settings = settings
    self.launch = launch
    self.stateEnteredAt = instant
    self.bandEnteredAt = instant
  }

  /// The effective band: the state's natural band lifted by the floor; a dead app has no band to protect.
  var band: Band { Band.effective(for: state, floor: settings.bandFloor) }

  /// The kill we asked for, if a process runs and one was.
  var requestedKill: RequestedKill? { process?.requestedKill }

  var status: AppStatus {
    var status = AppStatus(
      name: name, state: state, bandFloor: settings.bandFloor, pid: process?.pid, launch: launch,
      stateEnteredAt: stateEnteredAt, bandEnteredAt: bandEnteredAt, spawnedAt: process?.spawnedAt)
    status.summary = summary
    status.previousDigest = pendingLaunch?.previousDigest
    guard let process else { return status }
    status.suspendIncomplete = process.suspendIncomplete
    status.speaksProtocol = process.channel.speaksProtocol
    status.continuedByOthers = process.continuedByOthers
    status.previousDigest = process.restoration.previousDigest
    status.savedDigest = process.restoration.savedDigest
    status.restoredDigest = process.restoration.restoredDigest
    status.restorationLost = process.restoration.lost
    status.resumption = process.restoration.resumption
    status.savedAt = process.restoration.savedAt
    status.savedValidUntil = process.restoration.savedValidUntil
    status.awaySince = process.away?.since
    status.restorationDeadline = process.restoration.deadline
    status.killInFlight = process.killInFlight
    status.launchMetrics = process.metrics
    return status
  }
}
