import JetsamValues

/// Where one launch's ``AppCommands`` stand: the polling of `ready`, and the `didEnterBackground` whose
/// acknowledgement waits for the saved digest.
struct CommandRuns: Sendable, Equatable {
  /// The `didFinishLaunching` event the first success of `ready` acknowledges; nil once it has (or with no `ready`).
  var readyEvent: Int?
  /// How many runs of `ready` started.
  var readyAttempts = 0
  /// When the next run of `ready` starts (after a failed one).
  var nextReadyRun: Instant?
  /// The `didEnterBackground` event answered once the saved digest is taken.
  var saveEvent: Int?
  /// The saved digest's run is under way (after the event's command hook, if it has one).
  var saveDigestRunning = false
  /// The runs this launch's exit record keeps: the latest ``CommandRunRecord/maxRunsKept``, `ready` once (its
  /// last run, with the number of attempts).
  var kept: [CommandRunRecord] = []
}
