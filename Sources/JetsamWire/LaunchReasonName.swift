/// Why an app is starting, as the protocol says it: `didFinishLaunching reason=` and `JETSAM_LAUNCH_REASON`
/// (PROTOCOL.md, *The environment at launch*).
public enum LaunchReasonName: String, Sendable, Equatable, CaseIterable {
  /// No earlier exit is known.
  case fresh
  /// The app exited before; the previous exit's reason, state and time come with it.
  case afterExit
}
