import JetsamValues

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
    RestorationVerdict(previousDigest: previousDigest, restoredDigest: restoredDigest, lost: restorationLost)
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
