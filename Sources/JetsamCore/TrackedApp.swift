/// Everything the policy remembers about one app; ``AppStatus`` is its public view.
struct TrackedApp: Sendable {
  let name: String
  var bandFloor: Band?
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
  /// The kill we asked for; it also keeps jetsam from choosing the app (again).
  var requestedKill: RequestedKill?
  /// The jetsam snapshot taken when the app was chosen as a victim.
  var jetsamSnapshot: [SnapshotEntry]?
  /// Whether we sent SIGTERM to this process.
  var sentTerminate = false
  /// When an unanswered SIGTERM escalates to SIGKILL.
  var terminateDeadline: Instant?

  init(name: String, bandFloor: Band?, launch: Int, at instant: Instant) {
    self.name = name
    self.bandFloor = bandFloor
    self.launch = launch
    self.stateEnteredAt = instant
    self.bandEnteredAt = instant
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
    requestedKill = nil
    jetsamSnapshot = nil
    sentTerminate = false
    terminateDeadline = nil
  }

  var status: AppStatus {
    AppStatus(
      name: name, state: state, band: band, bandFloor: bandFloor, pid: pid, launch: launch,
      stateEnteredAt: stateEnteredAt, bandEnteredAt: bandEnteredAt, spawnedAt: spawnedAt)
  }
}

extension LifecycleState {
  /// Whether an app in this state occupies one of the foreground slots (a launching app does not yet).
  var holdsForegroundSlot: Bool { self == .foregroundActive || self == .foregroundInactive }
}
