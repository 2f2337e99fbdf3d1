/// Whether the state a launch restored is the one its previous launch saved.
public enum RestorationVerdict: String, Sendable, Codable, Equatable {
  /// The restored digest equals the saved one.
  case match
  /// They differ: the app lost or corrupted its state.
  case mismatch
  /// A saved digest is known but nothing was restored yet (the launch deadline has not passed).
  case pending
  /// The app reported what it restored, but never what it left: its save does not report (or does not run).
  case unsaved
  /// After a kill or crash that left a saved digest, the relaunch reported nothing restored within its launch
  /// deadline: the app does not restore (it starts from scratch, or it restores without saying so).
  case lost
}

extension RestorationVerdict {
  /// The verdict on a launch that was to restore `previousDigest` and reported `restoredDigest`; nil when there is
  /// nothing to judge. `lost`: its launch deadline passed with nothing restored reported.
  init?(previousDigest: String?, restoredDigest: String?, lost: Bool) {
    guard let previousDigest else {
      guard restoredDigest != nil else { return nil }
      self = .unsaved
      return
    }
    guard let restoredDigest else {
      self = lost ? .lost : .pending
      return
    }
    self = restoredDigest == previousDigest ? .match : .mismatch
  }
}
