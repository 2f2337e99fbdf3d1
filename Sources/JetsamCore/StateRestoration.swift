import JetsamValues

/// What one launch said about its state: what it saved and restored, judged against what the previous launch left,
/// and how its returns to the foreground showed it (kept in the exit record, handed to the next launch).
struct StateRestoration: Sendable {
  /// The digest the previous launch saved, which this one should restore.
  var previousDigest: String?
  /// What this launch last saved, when, and how long it said that state stays current.
  var savedDigest: String?
  var savedAt: Instant?
  var savedValidFor: Duration?
  /// What this launch said it restored.
  var restoredDigest: String?
  /// When a launch after a kill or crash that left a saved digest must have reported what it restored.
  var deadline: Instant?
  /// That deadline passed with nothing restored reported.
  var lost = false
  /// The verdict of this launch's resumptions: the first stale one, else the latest.
  var resumption: ResumptionJudgement?

  /// Until when the saved state stays current, if the launch said.
  var savedValidUntil: Instant? { savedAt.flatMap { at in savedValidFor.map { at.advanced(by: $0) } } }

  /// Whether this launch restored the state the previous one saved; nil when there is nothing to judge.
  var verdict: RestorationVerdict? {
    RestorationVerdict(previousDigest: previousDigest, restoredDigest: restoredDigest, lost: lost)
  }
}
