/// Which side of a save/restore round trip a state digest describes: `stateDigest phase=` (PROTOCOL.md, *App to
/// daemon*). One definition for jetsamd (as `DigestPhase`) and the Swift client.
public enum StateDigestPhase: String, Equatable, Sendable, CaseIterable {
  /// The digest of the state just saved (report it at `didEnterBackground`).
  case saved
  /// The digest of the state restored after a launch; jetsam compares it with the last `saved` one.
  case restored
  /// The digest of what the app shows on its return to the foreground without a relaunch (report it at
  /// `didBecomeActive`); jetsam calls it stale when it is the saved state and that outlived its `validFor`.
  case resumed
}
