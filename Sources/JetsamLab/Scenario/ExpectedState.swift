import JetsamCore

/// The state an `expect: { state: … }` step asks an app to be in, as the scenario named it: a coarse state
/// (`foreground`, `background`, `suspended`, `notRunning`: any lifecycle state within it), or one lifecycle state
/// exactly (`foregroundActive`, `launching`).
public enum ExpectedState: Sendable, Equatable, CustomStringConvertible {
  case coarse(CoarseState)
  case exactly(LifecycleState)

  /// The state `word` names, nil for a word that names none. A word that is both a coarse state and a lifecycle
  /// state (`background`, `suspended`, `notRunning`) is the coarse one, which holds for the lifecycle state too.
  init?(_ word: String) {
    if let coarse = CoarseState(rawValue: word) {
      self = .coarse(coarse)
    } else if let state = LifecycleState(rawValue: word) {
      self = .exactly(state)
    } else {
      return nil
    }
  }

  /// Whether an app in `state` is in the expected state.
  func holds(for state: LifecycleState) -> Bool {
    switch self {
    case .coarse(let expected): state.coarse == expected
    case .exactly(let expected): state == expected
    }
  }

  public var description: String {
    switch self {
    case .coarse(let state): state.rawValue
    case .exactly(let state): state.rawValue
    }
  }
}
