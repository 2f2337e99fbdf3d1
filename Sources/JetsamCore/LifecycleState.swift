/// Where an app is in its life, as on iOS: UIApplication's states plus the process's own existence.
public enum LifecycleState: String, Codable, Sendable, CaseIterable {
  /// Never launched, or cleanly gone and forgotten.
  case notRunning
  /// Process started; the app has not yet finished launching.
  case launching
  /// In the foreground and receiving events.
  case foregroundActive
  /// In the foreground but not receiving events (during a transition).
  case foregroundInactive
  /// Running in the background.
  case background
  /// Stopped (SIGSTOP or the cgroup freezer): memory still resident, no CPU.
  case suspended
  /// The process has died; an exit record was written. A relaunch starts from here.
  case terminated

  /// The states this state may move to directly; every other move is refused by the policy.
  public var legalSuccessors: Set<LifecycleState> {
    switch self {
    case .notRunning, .terminated: [.launching]
    case .launching: [.foregroundActive, .foregroundInactive, .background, .terminated]
    case .foregroundActive: [.foregroundInactive, .terminated]
    case .foregroundInactive: [.foregroundActive, .background, .terminated]
    case .background: [.foregroundInactive, .suspended, .terminated]
    case .suspended: [.background, .terminated]
    }
  }

  /// Whether moving from this state to `next` is a legal transition.
  public func canMove(to next: LifecycleState) -> Bool { legalSuccessors.contains(next) }

  /// Whether a process exists in this state.
  public var isRunning: Bool {
    switch self {
    case .notRunning, .terminated: false
    default: true
    }
  }

  /// Whether an app in this state occupies one of the foreground slots (a launching app does not yet).
  var holdsForegroundSlot: Bool { self == .foregroundActive || self == .foregroundInactive }

  /// The coarse state named in exit records and `ps`: `foreground`, `background`, `suspended`, `notRunning`.
  public var coarse: CoarseState {
    switch self {
    case .launching, .foregroundActive, .foregroundInactive: .foreground
    case .background: .background
    case .suspended: .suspended
    case .notRunning, .terminated: .notRunning
    }
  }

  /// ``coarse``'s word, for the places that show it (`ps`, counters by state).
  public var coarseName: String { coarse.rawValue }
}
