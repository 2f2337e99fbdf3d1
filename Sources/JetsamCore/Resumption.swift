import JetsamValues

/// Whether an app that came back to the foreground without a relaunch showed current state.
public enum ResumptionVerdict: String, Sendable, Codable, Equatable {
  /// Within its saved state's `validFor`, or it showed something newer than what it saved.
  case fresh
  /// Past its saved state's `validFor`, it showed exactly what it saved: it did not refresh after a long
  /// suspension (its timers did not run while it was stopped, and nothing on its return noticed).
  case stale
}

/// A resumed app's verdict and what decided it.
public struct ResumptionJudgement: Sendable, Equatable, Codable {
  public var verdict: ResumptionVerdict
  /// What the app saved (`phase=saved`) and what it showed on its return (`phase=resumed`).
  public var savedDigest: String
  public var resumedDigest: String
  /// How old the saved state was when the app reported what it showed, and how long it said it stays valid.
  public var stateAgeSeconds: Double
  public var validForSeconds: Double

  public init(
    verdict: ResumptionVerdict, savedDigest: String, resumedDigest: String, stateAgeSeconds: Double,
    validForSeconds: Double
  ) {
    self.verdict = verdict
    self.savedDigest = savedDigest
    self.resumedDigest = resumedDigest
    self.stateAgeSeconds = stateAgeSeconds
    self.validForSeconds = validForSeconds
  }

  /// Judges a resumed digest against the last saved one: stale when the saved state outlived its validity and
  /// the app still showed it.
  static func judge(saved: String, savedAt: Instant, validFor: Duration, resumed: String, at: Instant)
    -> ResumptionJudgement
  {
    let age = at.duration(since: savedAt)
    let stale = age > validFor && resumed == saved
    return ResumptionJudgement(
      verdict: stale ? .stale : .fresh, savedDigest: saved, resumedDigest: resumed,
      stateAgeSeconds: at.seconds(since: savedAt), validForSeconds: Double(validFor.nanoseconds) / 1e9)
  }
}
