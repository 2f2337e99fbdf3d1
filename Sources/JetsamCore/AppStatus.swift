import JetsamValues

/// One app as the policy sees it: the read-only view for `ps`, snapshots and the shell, and the saved form a
/// successor daemon adopts (``JetsamPolicy/savedApps`` exports it, ``PolicyEvent/adopt(app:at:)`` takes it back),
/// so that nobody copies an app's fields from one struct into another.
///
/// Its JSON is the state file's (`adopted` in each saved app), with the keys the saved form always had: what only
/// a view needs (``band``, ``suspendIncomplete``) and what only an adopting daemon sees (``observedStopped``) is
/// not written, and what is left at its default is left out.
public struct AppStatus: Sendable, Equatable {
  public var name: String
  public var state: LifecycleState
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
  /// Whether the app's processes did not all stop within the suspend timeout (and have not since). Not saved: a
  /// successor looks at the processes itself (``observedStopped``).
  public var suspendIncomplete = false
  /// Whether the running launch speaks the protocol (acknowledgements are watched): it said `hello` or sent a
  /// valid message, or its settings expect acknowledgements always. Not saved: a successor learns it again.
  public var speaksProtocol = false
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
  /// Set by a daemon adopting the app: whether it found every process of the app stopped (nil: not looked at).
  /// The processes are the truth: the state the previous daemon saved may lag its last moments. The policy's own
  /// view leaves it nil, and it is not saved.
  public var observedStopped: Bool?
  /// What this launch measured of itself up to its last state change (saved: a restart keeps the figures).
  public var launchMetrics: LaunchMetrics?

  /// The effective band: the state's natural band, lifted by `bandFloor`.
  public var band: Band { Band.effective(for: state, floor: bandFloor) }

  /// Whether this launch restored the state the previous one saved; nil when there is nothing to judge.
  public var restoration: RestorationVerdict? {
    RestorationVerdict(previousDigest: previousDigest, restoredDigest: restoredDigest, lost: restorationLost)
  }

  public init(
    name: String, state: LifecycleState, bandFloor: Band?, pid: Int32?, launch: Int, stateEnteredAt: Instant,
    bandEnteredAt: Instant, spawnedAt: Instant?
  ) {
    self.name = name
    self.state = state
    self.bandFloor = bandFloor
    self.pid = pid
    self.launch = launch
    self.stateEnteredAt = stateEnteredAt
    self.bandEnteredAt = bandEnteredAt
    self.spawnedAt = spawnedAt
  }
}

extension AppStatus: Codable {
  /// The saved form's keys (a state file from before the view and the saved form were one type reads as it is).
  enum CodingKeys: String, CodingKey {
    case name, state, bandFloor, pid, launch, stateEnteredAt, bandEnteredAt, spawnedAt, continuedByOthers, summary,
      previousDigest, savedDigest, restoredDigest, restorationLost, resumption, savedAt, savedValidUntil, awaySince,
      restorationDeadline, killInFlight, launchMetrics
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try container.decode(String.self, forKey: .name),
      state: try container.decode(LifecycleState.self, forKey: .state),
      bandFloor: try container.decodeIfPresent(Band.self, forKey: .bandFloor),
      pid: try container.decodeIfPresent(Int32.self, forKey: .pid),
      launch: try container.decode(Int.self, forKey: .launch),
      stateEnteredAt: try container.decode(Instant.self, forKey: .stateEnteredAt),
      bandEnteredAt: try container.decode(Instant.self, forKey: .bandEnteredAt),
      spawnedAt: try container.decodeIfPresent(Instant.self, forKey: .spawnedAt))
    continuedByOthers = try container.decodeIfPresent(Int.self, forKey: .continuedByOthers) ?? 0
    summary = try container.decodeIfPresent(String.self, forKey: .summary)
    previousDigest = try container.decodeIfPresent(String.self, forKey: .previousDigest)
    savedDigest = try container.decodeIfPresent(String.self, forKey: .savedDigest)
    restoredDigest = try container.decodeIfPresent(String.self, forKey: .restoredDigest)
    restorationLost = try container.decodeIfPresent(Bool.self, forKey: .restorationLost) ?? false
    resumption = try container.decodeIfPresent(ResumptionJudgement.self, forKey: .resumption)
    savedAt = try container.decodeIfPresent(Instant.self, forKey: .savedAt)
    savedValidUntil = try container.decodeIfPresent(Instant.self, forKey: .savedValidUntil)
    awaySince = try container.decodeIfPresent(Instant.self, forKey: .awaySince)
    restorationDeadline = try container.decodeIfPresent(Instant.self, forKey: .restorationDeadline)
    killInFlight = try container.decodeIfPresent(KillInFlight.self, forKey: .killInFlight)
    launchMetrics = try container.decodeIfPresent(LaunchMetrics.self, forKey: .launchMetrics)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(state, forKey: .state)
    try container.encodeIfPresent(bandFloor, forKey: .bandFloor)
    try container.encodeIfPresent(pid, forKey: .pid)
    try container.encode(launch, forKey: .launch)
    try container.encode(stateEnteredAt, forKey: .stateEnteredAt)
    try container.encode(bandEnteredAt, forKey: .bandEnteredAt)
    try container.encodeIfPresent(spawnedAt, forKey: .spawnedAt)
    if continuedByOthers != 0 { try container.encode(continuedByOthers, forKey: .continuedByOthers) }
    try container.encodeIfPresent(summary, forKey: .summary)
    try container.encodeIfPresent(previousDigest, forKey: .previousDigest)
    try container.encodeIfPresent(savedDigest, forKey: .savedDigest)
    try container.encodeIfPresent(restoredDigest, forKey: .restoredDigest)
    if restorationLost { try container.encode(true, forKey: .restorationLost) }
    try container.encodeIfPresent(resumption, forKey: .resumption)
    try container.encodeIfPresent(savedAt, forKey: .savedAt)
    try container.encodeIfPresent(savedValidUntil, forKey: .savedValidUntil)
    try container.encodeIfPresent(awaySince, forKey: .awaySince)
    try container.encodeIfPresent(restorationDeadline, forKey: .restorationDeadline)
    try container.encodeIfPresent(killInFlight, forKey: .killInFlight)
    try container.encodeIfPresent(launchMetrics, forKey: .launchMetrics)
  }
}
