/// The `JETSAM_*` environment variables jetsamd starts apps and their command hooks with (PROTOCOL.md, *The
/// environment at launch* and *Programs that do not speak the protocol*). One list for jetsamd, which sets them, and
/// the Swift client, which reads them.
///
/// Listed per receiver in `Tests/Fixtures/wire-lines.json` (`vocabulary.environment`), which the tests hold equal to
/// the variables of ``isSetForApps`` and ``isSetForHooks``, so that the Python client and the C programs are checked
/// against the same names.
public enum AppEnvironmentVariable: String, Sendable, Equatable, CaseIterable {
  /// The app channel's descriptor number.
  case channelDescriptor = "JETSAM_FD"
  /// The protocol version jetsamd speaks.
  case protocolVersion = "JETSAM_PROTOCOL"
  /// The app's name in jetsam's config (for a hook, the app it runs for).
  case app = "JETSAM_APP"
  /// The launch counter: `1` for the first launch, then `2`, …
  case launch = "JETSAM_LAUNCH"
  /// Why the app is starting (``LaunchReasonName``).
  case launchReason = "JETSAM_LAUNCH_REASON"
  /// After an exit: the previous exit's `reason=`, `state=` and `time=` fields (``AppProtocolField``), as on a line.
  case previousExit = "JETSAM_PREVIOUS_EXIT"
  /// The app's last state summary, percent-encoded, if it left one.
  case stateSummary = "JETSAM_STATE_SUMMARY"
  /// The crash socket's descriptor number, for jetsam's crash reporter (`libjetsam-crash.so`), when jetsamd takes
  /// crash diagnostics; not for the app to use.
  case crashDescriptor = "JETSAM_CRASH_FD"
  /// The lifecycle event a command hook runs for (``AppEventName``).
  case event = "JETSAM_EVENT"

  /// Whether jetsamd starts apps with this variable (some only at some launches: after an exit, with crash
  /// diagnostics on).
  public var isSetForApps: Bool {
    switch self {
    case .channelDescriptor, .protocolVersion, .app, .launch, .launchReason, .previousExit, .stateSummary,
      .crashDescriptor:
      true
    case .event: false
    }
  }

  /// Whether jetsamd starts an app's command hooks with this variable.
  public var isSetForHooks: Bool {
    switch self {
    case .app, .event: true
    case .channelDescriptor, .protocolVersion, .launch, .launchReason, .previousExit, .stateSummary, .crashDescriptor:
      false
    }
  }
}
