/// A request the policy refuses, with a message for the user.
public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No app of that name has been configured or launched.
  case unknownApp(String)
  /// The request does not fit the app's current state (e.g. suspending a not-running app).
  case illegalTransition(app: String, from: LifecycleState, request: String)
  /// The app's command is not known: it was taken over after a restart with neither a saved state nor a config
  /// naming it.
  case notLaunchable(app: String)

  public var description: String {
    switch self {
    case .unknownApp(let name): "no app named \"\(name)\""
    case .illegalTransition(let app, let from, let request):
      "cannot \(request) \(app): it is \(from.rawValue)"
    case .notLaunchable(let app): "cannot launch \(app): its command is not known (it was adopted without a config)"
    }
  }
}
