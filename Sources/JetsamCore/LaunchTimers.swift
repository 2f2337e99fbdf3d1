import JetsamValues

/// The launch and resume measurements under way on a running process: which event's acknowledgement ends them.
/// Not saved: a measurement a daemon restart cut in two is dropped (the figures so far are kept).
struct LaunchTimers: Sendable {
  /// The launch goes to the foreground and its first `didBecomeActive` has not been delivered yet.
  var awaitsFirstDraw = false
  /// The id of the launch's first `didBecomeActive`, whose acknowledgement is the first draw.
  var firstDrawEvent: Int?
  /// When the current return's `willEnterForeground` was delivered, and the id of the `didBecomeActive` that
  /// ends it once delivered.
  var resumeSince: Instant?
  var resumeEvent: Int?
}
