/// The CPU monitor's limits, per state. A state without limits is not watched (a suspended app never is: it does
/// not run).
public struct CPUMonitorConfig: Sendable, Equatable, Codable {
  /// Background apps: by default iOS's, killed on reaching 80 % of a core over 60 s, reported on reaching 50 % over
  /// 180 s.
  public var background: CPUStateLimits
  /// Foreground apps: a non-fatal limit only (iOS does not kill an app the user is looking at for its CPU); none
  /// by default.
  public var foreground: CPUBudget?

  /// How many samples of each watched app's CPU time its shortest window holds: the finer, the closer a verdict
  /// comes to the moment a limit is reached, the dearer the watch.
  public static let samplesPerWindow = 12

  public init(background: CPUStateLimits = CPUMonitorConfig.iOSBackground, foreground: CPUBudget? = nil) {
    self.background = background
    self.foreground = foreground
  }

  /// iOS's background limits, as its crash logs state them: fatal "80% cpu over 60 seconds", non-fatal "50% cpu
  /// over 180 seconds".
  public static let iOSBackground = CPUStateLimits(
    fatal: CPUBudget(limitPercent: 80, window: .seconds(60)),
    nonFatal: CPUBudget(limitPercent: 50, window: .seconds(180)))

  /// Every window multiplied by `scale` (the config's `timeScale`).
  public func scaled(by scale: Double) -> CPUMonitorConfig {
    CPUMonitorConfig(background: background.scaled(by: scale), foreground: foreground?.scaled(by: scale))
  }

  /// The limits of a state (`background` or `foreground`).
  func limits(in state: CoarseState) -> CPUStateLimits {
    state == .foreground ? CPUStateLimits(nonFatal: foreground) : background
  }
}
