/// A launch asked for whose process is not spawned yet (the app is `launching`): what the spawn needs from the
/// request.
struct PendingLaunch: Sendable {
  /// Whether the app goes to the foreground once spawned (an activation while it launches says so too).
  var toForeground: Bool
  /// The digest the previous launch left, which this one should restore.
  var previousDigest: String?
}
