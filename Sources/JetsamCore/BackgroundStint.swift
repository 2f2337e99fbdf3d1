import JetsamValues

/// One stay in the background, as the background-task budget and the grace see it: from entering the background
/// to leaving it.
struct BackgroundStint: Sendable {
  /// When it started: the background-task budget counts from here.
  var since: Instant
  /// Whether backgroundTaskWillExpire went out in this stint.
  var expiryWarned = false
  /// The background grace ran out while the app was busy (tasks, unacknowledged events): suspend it once idle.
  var suspendWhenIdle = false
}
