/// The keys of the app protocol's fields, in both directions (PROTOCOL.md).
///
/// Listed per direction in `Tests/Fixtures/wire-lines.json` (`vocabulary`), which the tests hold equal to the
/// fields of ``isSentByApps`` and ``isSentByDaemon``.
public enum AppProtocolField: String, Sendable, Equatable, CaseIterable {
  /// The protocol version, in either side's `hello`.
  case version
  /// The app's name, in the daemon's `hello`.
  case app
  /// The launch counter, in the daemon's `hello`.
  case launch
  /// A request's id (and the `reply` or `error` that answers it), or an event's number.
  case id
  /// An event's name (``AppEventName``), a background task's or a signpost's name.
  case name
  /// `ack event=N`: the event acknowledged.
  case event
  /// `beginBackgroundTask kind=finishing|processing`.
  case kind
  /// A background task's number.
  case task
  /// `backgroundTaskWillExpire`: the expiring task's name.
  case taskName
  /// `stateSummary` and `stateDigest`: the summary or the digest.
  case value
  /// `stateDigest phase=` and `signpost phase=`.
  case phase
  /// `stateDigest phase=saved validFor=S`: how long the saved state stays current.
  case validFor
  /// `didFinishLaunching reason=fresh|afterExit`, and the previous exit's reason in `JETSAM_PREVIOUS_EXIT`.
  case reason
  /// `didFinishLaunching`: the previous exit's reason, state and time, and the app's last state summary.
  case previousReason, previousState, previousTime, summary
  /// `didFinishLaunching state=foreground|background`, and the state the previous exit found the app in, in
  /// `JETSAM_PREVIOUS_EXIT`.
  case state
  /// The time of the previous exit, in `JETSAM_PREVIOUS_EXIT`.
  case time
  /// `memoryWarning level=warning|urgent|critical`.
  case level
  /// `willEnterForeground` and `didBecomeActive`: how long the app was away from the foreground, and suspended.
  case backgroundFor, suspendedFor
  /// `backgroundTimeRemaining`'s reply: decimal seconds, or `inf`.
  case seconds
  /// An `error`'s code (``AppProtocolErrorCode``) and its message.
  case code, message

  /// Whether apps write this field on lines to jetsamd.
  public var isSentByApps: Bool {
    switch self {
    case .version, .id, .name, .event, .kind, .task, .value, .phase, .validFor: true
    case .app, .launch, .taskName, .reason, .previousReason, .previousState, .previousTime, .summary, .state, .time,
      .level, .backgroundFor, .suspendedFor, .seconds, .code, .message:
      false
    }
  }

  /// Whether jetsamd writes this field, on lines to apps or in `JETSAM_PREVIOUS_EXIT` (same field format).
  public var isSentByDaemon: Bool {
    switch self {
    case .version, .app, .launch, .id, .name, .task, .taskName, .reason, .previousReason, .previousState,
      .previousTime, .summary, .state, .time, .level, .backgroundFor, .suspendedFor, .seconds, .code, .message:
      true
    case .event, .kind, .value, .phase, .validFor: false
    }
  }
}
