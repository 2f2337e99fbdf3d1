import JetsamValues

/// One stay away from the foreground, from leaving it (or launching into the background) until didBecomeActive
/// ends the return: what the return's events tell the app.
struct AwayStint: Sendable {
  /// When the app left the foreground.
  var since: Instant
  /// How long it has been suspended since then.
  var suspended: Duration = .zero
}
