import JetsamWire

/// Which of an app's commands (``AppCommands``) a run is, as the policy asks for it and the shell reports its end.
public enum AppCommandRun: Sendable, Equatable {
  /// A poll of `ready`: is the program up?
  case ready
  /// A run of `digest` for `phase`; the shell reports what it printed as the app's `stateDigest` of that phase,
  /// with `validFor` for a saved one.
  case digest(DigestPhase, validFor: Duration?)

  /// The lifecycle event the run belongs to (what the command's `JETSAM_EVENT` says).
  public var event: AppEventKind {
    switch self {
    case .ready, .digest(.restored, _): .didFinishLaunching
    case .digest(.saved, _): .didEnterBackground
    case .digest(.resumed, _): .didBecomeActive
    }
  }

  /// How the run is named in logs and exit records: `ready`, `digest saved`.
  public var label: String {
    switch self {
    case .ready: "ready"
    case .digest(let phase, _): "digest \(phase.rawValue)"
    }
  }
}
