import JetsamValues

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
