import JetsamWire

/// What an app (or the shell on its behalf) tells the policy through its channel.
public enum AppMessage: Sendable, Equatable {
  /// The app speaks the protocol: acknowledgements are expected from now on.
  case hello
  /// The handler of event `event` returned.
  case acknowledge(event: Int)
  /// Ask for background time; answered with a `reply` carrying the task id.
  case beginBackgroundTask(requestID: Int, name: String, kind: BackgroundTaskKind = .finishing)
  /// The task is done.
  case endBackgroundTask(task: Int, requestID: Int?)
  /// How long background tasks may still run; answered with a `reply` carrying seconds.
  case backgroundTimeRemaining(requestID: Int)
  /// The app's state summary (at most ``AppMessage/maxSummaryBytes``; empty clears it), handed back at its
  /// next launch.
  case stateSummary(String, requestID: Int?)
  /// The digest of the state the app saved (and how long that state stays current, if it says), restored
  /// after a relaunch, or showed on its return to the foreground.
  case stateDigest(phase: DigestPhase, value: String, validFor: Duration?, requestID: Int?)
  /// A point or the bounds of an interval in the app's own work (like MetricKit's `mxSignpost`): recorded with its
  /// time for labs' timelines, decides nothing.
  case signpost(name: String, phase: SignpostPhase, requestID: Int?)

  /// The longest `validFor` an app may give: a year (longer means "forever", which is no `validFor` at all).
  public static let maxValidFor = Duration.seconds(366 * 24 * 3600)

  /// The longest state summary, in UTF-8 bytes.
  public static let maxSummaryBytes = 128

  /// The longest signpost name, in UTF-8 bytes.
  public static let maxSignpostNameBytes = 128
}
