/// A request the policy refuses, with a message for the user.
public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No app of that name has been configured or launched.
  case unknownApp(String)
  /// The request does not fit the app's current state (e.g. suspending a not-running app).
  case illegalTransition(app: String, from: LifecycleState, request: String)

  public var description: String {
    switch self {
    case .unknownApp(let name): "no app named \"\(name)\""
    case .illegalTransition(let app, let from, let request):
      "cannot \(request) \(app): it is \(from.rawValue)"
    }
  }
}
