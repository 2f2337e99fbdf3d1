/// What an app's deadlines depend on beside the app itself: the lifecycle's timings (the background-task budget, the
/// expiration warning) and whether the device is charging (which exempts `processing` tasks from that budget). When
/// it changes, every app's deadline is filed again.
struct DeadlineContext: Equatable, Sendable {
  var timings: LifecycleTimings
  var charging: Bool
}
