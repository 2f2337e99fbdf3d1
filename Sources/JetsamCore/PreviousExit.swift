import JetsamWire

/// What a launch is told about the app's previous exit (`JETSAM_PREVIOUS_EXIT`, didFinishLaunching's fields).
public struct PreviousExit: Sendable, Equatable {
  /// The MetricKit reason of the previous exit.
  public var reason: ExitReason
  /// The coarse state it died in.
  public var state: CoarseState
  /// Its wall-clock time (RFC 3339), as recorded.
  public var time: String
  /// The state summary it left, handed back to the new launch.
  public var summary: String?

  public init(reason: ExitReason, state: CoarseState, time: String, summary: String?) {
    self.reason = reason
    self.state = state
    self.time = time
    self.summary = summary
  }

  init(_ record: ExitRecord) {
    self.init(
      reason: record.cause.reason, state: record.lifecycle.state, time: record.time,
      summary: record.savedState.summary)
  }
}

/// Which digest of its state an app reports: the one it saved before going away, the one a relaunch restored,
/// or the one it shows on its return to the foreground without a relaunch. The protocol's `phase=` values, from
/// JetsamWire.
public typealias DigestPhase = StateDigestPhase
