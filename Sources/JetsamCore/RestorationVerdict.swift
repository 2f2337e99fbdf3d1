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
