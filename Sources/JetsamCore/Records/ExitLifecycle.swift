/// Where an app was in its life when it ended: the coarse state it died in, how long it had been in that state and
/// alive, and how a suspension on its way to a kill went.
public struct ExitLifecycle: Hashable, Sendable {
  /// The coarse state the app died in: `foreground`, `background` or `suspended`.
  public var state: CoarseState
  /// Seconds from spawn to exit.
  public var aliveSeconds: Double
  /// Seconds in the state it died in (for `suspended`, from the moment its last process stopped).
  public var stateSeconds: Double
  /// For an app jetsam suspended on its way to this kill (a running background app, iOS's escalation): how long it
  /// had run in the background before.
  public var backgroundSecondsBeforeSuspension: Double?
  /// For an app that died suspended: true when its processes never all stopped (the suspend timed out).
  public var suspendIncomplete: Bool?

  /// The state the app died in and its times.
  public init(
    state: CoarseState, aliveSeconds: Double, stateSeconds: Double, backgroundSecondsBeforeSuspension: Double? = nil,
    suspendIncomplete: Bool? = nil
  ) {
    self.state = state
    self.aliveSeconds = aliveSeconds
    self.stateSeconds = stateSeconds
    self.backgroundSecondsBeforeSuspension = backgroundSecondsBeforeSuspension
    self.suspendIncomplete = suspendIncomplete
  }
}

extension ExitLifecycle {
  /// The lifecycle as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      state: try record.decode(CoarseState.self, forKey: .state),
      aliveSeconds: try record.decode(Double.self, forKey: .aliveSeconds),
      stateSeconds: try record.decode(Double.self, forKey: .stateSeconds),
      backgroundSecondsBeforeSuspension: try record.decodeIfPresent(
        Double.self, forKey: .backgroundSecondsBeforeSuspension),
      suspendIncomplete: try record.decodeIfPresent(Bool.self, forKey: .suspendIncomplete))
  }

  /// Writes the lifecycle into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encode(state, forKey: .state)
    try record.encode(aliveSeconds, forKey: .aliveSeconds)
    try record.encode(stateSeconds, forKey: .stateSeconds)
    try record.encodeIfPresent(backgroundSecondsBeforeSuspension, forKey: .backgroundSecondsBeforeSuspension)
    try record.encodeIfPresent(suspendIncomplete, forKey: .suspendIncomplete)
  }
}
