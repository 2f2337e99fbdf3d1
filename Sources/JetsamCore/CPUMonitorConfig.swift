/// The CPU monitor's budgets, per state. A state without a budget is not watched (a suspended app never is: it
/// does not run).
public struct CPUMonitorConfig: Sendable, Equatable {
  /// Background apps: by default iOS's 80 % of a core over 60 s, killed if still over a minute after the exception.
  public var background: CPUBudget?
  /// Foreground apps: not watched unless configured (then reported, never killed: iOS does not kill an app the
  /// user is looking at for its CPU).
  public var foreground: CPUBudget?

  /// How many samples of each watched app's CPU time a window holds: the finer, the closer an exception comes
  /// to the moment the budget is crossed, the dearer the watch.
  public static let samplesPerWindow = 12

  public init(background: CPUBudget? = CPUMonitorConfig.iOSBackground, foreground: CPUBudget? = nil) {
    self.background = background
    self.foreground = foreground
  }

  /// iOS's background budget: 80 % of a core over 60 s, killed if still over a minute after the exception.
  public static let iOSBackground = CPUBudget(limitPercent: 80, window: .seconds(60), killAfter: .seconds(60))

  /// How often watched apps are sampled: a twelfth of the shortest window, at most 100 times a second.
  public var sampleInterval: Duration {
    let windows = [background, foreground].compactMap { $0?.window }
    let shortest = windows.min() ?? .seconds(60)
    return max(shortest / CPUMonitorConfig.samplesPerWindow, .milliseconds(10))
  }

  /// Every duration multiplied by `scale` (the config's `timeScale`).
  public func scaled(by scale: Double) -> CPUMonitorConfig {
    func s(_ budget: CPUBudget?) -> CPUBudget? {
      budget.map { budget in
        CPUBudget(
          limitPercent: budget.limitPercent, window: budget.window.scaled(by: scale),
          killAfter: budget.killAfter?.scaled(by: scale))
      }
    }
    return CPUMonitorConfig(background: s(background), foreground: s(foreground))
  }
}
