/// The app's own state as its exit record keeps it: the summary and digest it last gave, and the verdicts of this
/// launch on restoring the state the launch before it saved and on resuming without a relaunch (PROTOCOL.md).
public struct ExitSavedState: Hashable, Sendable {
  /// The app's last state summary (up to 128 bytes), handed back at its next launch (`stateSummary` on disk).
  public var summary: String?
  /// The digest of the state the app last said it saved (`stateDigest` on disk).
  public var digest: String?
  /// The restoration verdict of this launch (`match`, `mismatch`, `unsaved`, `lost`), and the digest it reported
  /// restored; absent when there was nothing to judge or no verdict yet.
  public var restoration: RestorationVerdict?
  public var restoredDigest: String?
  /// Whether the app showed current state on its returns to the foreground in this launch (`fresh`, `stale`;
  /// the first stale return, else the last), the digest it showed then, how old its saved state was, and how
  /// long it had said that state stays current; absent when no return was judged.
  public var resumption: ResumptionVerdict?
  public var resumedDigest: String?
  public var resumedStateAgeSeconds: Double?
  public var resumedStateValidForSeconds: Double?

  /// The summary and digest the app last gave; no verdict yet.
  public init(summary: String? = nil, digest: String? = nil) {
    self.summary = summary
    self.digest = digest
  }

  /// Whether the launch got a verdict: on its restoration, its returns to the foreground, or both.
  public var hasVerdict: Bool { restoration != nil || resumption != nil }
}

extension ExitSavedState {
  /// The saved state as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      summary: try record.decodeIfPresent(String.self, forKey: .stateSummary),
      digest: try record.decodeIfPresent(String.self, forKey: .stateDigest))
    restoration = try record.decodeIfPresent(RestorationVerdict.self, forKey: .restoration)
    restoredDigest = try record.decodeIfPresent(String.self, forKey: .restoredDigest)
    resumption = try record.decodeIfPresent(ResumptionVerdict.self, forKey: .resumption)
    resumedDigest = try record.decodeIfPresent(String.self, forKey: .resumedDigest)
    resumedStateAgeSeconds = try record.decodeIfPresent(Double.self, forKey: .resumedStateAgeSeconds)
    resumedStateValidForSeconds = try record.decodeIfPresent(Double.self, forKey: .resumedStateValidForSeconds)
  }

  /// Writes the saved state into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encodeIfPresent(summary, forKey: .stateSummary)
    try record.encodeIfPresent(digest, forKey: .stateDigest)
    try record.encodeIfPresent(restoration, forKey: .restoration)
    try record.encodeIfPresent(restoredDigest, forKey: .restoredDigest)
    try record.encodeIfPresent(resumption, forKey: .resumption)
    try record.encodeIfPresent(resumedDigest, forKey: .resumedDigest)
    try record.encodeIfPresent(resumedStateAgeSeconds, forKey: .resumedStateAgeSeconds)
    try record.encodeIfPresent(resumedStateValidForSeconds, forKey: .resumedStateValidForSeconds)
  }
}
