/// The deadlines and budgets of the app side, already multiplied by the config's time scale.
public struct LifecycleTimings: Sendable, Equatable {
  /// didFinishLaunching.
  public var launch: Duration
  /// willEnterForeground, didBecomeActive, willResignActive.
  public var foregroundTransition: Duration
  /// didEnterBackground.
  public var background: Duration
  /// willTerminate (then SIGTERM follows whether or not it was acknowledged).
  public var terminate: Duration
  /// Background time an app with open tasks gets from entering the background.
  public var backgroundTaskBudget: Duration
  /// backgroundTaskWillExpire is sent this long before the budget runs out.
  public var expirationWarning: Duration
  /// Open tasks are killed this long after the budget ran out.
  public var expirationGrace: Duration

  public init(
    launch: Duration = .seconds(20), foregroundTransition: Duration = .seconds(10), background: Duration = .seconds(5),
    terminate: Duration = .seconds(5), backgroundTaskBudget: Duration = .seconds(30),
    expirationWarning: Duration = .seconds(5), expirationGrace: Duration = .seconds(1)
  ) {
    self.launch = launch
    self.foregroundTransition = foregroundTransition
    self.background = background
    self.terminate = terminate
    self.backgroundTaskBudget = backgroundTaskBudget
    self.expirationWarning = expirationWarning
    self.expirationGrace = expirationGrace
  }

  /// The acknowledgement deadline of an event kind.
  public func deadline(for kind: AppEventKind) -> Duration {
    switch kind {
    case .didFinishLaunching: launch
    case .didEnterBackground: background
    case .willTerminate: terminate
    default: foregroundTransition
    }
  }

  /// Every duration multiplied by `scale` (labs and tests run the same rules faster).
  public func scaled(by scale: Double) -> LifecycleTimings {
    func s(_ d: Duration) -> Duration { d.scaled(by: scale) }
    return LifecycleTimings(
      launch: s(launch), foregroundTransition: s(foregroundTransition), background: s(background),
      terminate: s(terminate), backgroundTaskBudget: s(backgroundTaskBudget),
      expirationWarning: s(expirationWarning), expirationGrace: s(expirationGrace))
  }
}
