import JetsamCore
import JetsamValues

/// The control verbs that move apps through their lifecycle, each with the policy event it becomes: its own type,
/// so that the handler's switch over them is exhaustive and a verb routed here can only become its own event.
enum LifecycleVerb: Sendable {
  case activate, background, suspend, resume, terminate
  /// `kill`, for `reason` (a user kill counts as memory pressure unless the request names another).
  case kill(ExitReason)

  /// The policy event that carries the verb out on app `name` at `now`.
  func event(app name: String, at now: Instant) -> PolicyEvent {
    switch self {
    case .activate: .activate(app: name, at: now)
    case .background: .moveToBackground(app: name, at: now)
    case .suspend: .suspend(app: name, at: now)
    case .resume: .resume(app: name, at: now)
    case .terminate: .terminate(app: name, at: now)
    case .kill(let reason): .kill(app: name, reason: reason, at: now)
    }
  }
}
