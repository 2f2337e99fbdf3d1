import FoundationEssentials
import JetsamCore

/// The config's `cpuMonitor`: a CPU budget per state (`config/jetsamd.json5` documents it).
public struct CPUMonitorSettings: Sendable, Codable, Equatable {
  /// Background apps: iOS's 80 % of a core over 60 s by default; null: not watched.
  public var background: CPUBudgetSettings? = CPUBudgetSettings(CPUMonitorConfig.iOSBackground)
  /// Foreground apps: not watched by default; when set, only reported (never killed).
  public var foreground: CPUBudgetSettings?

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable { case background, foreground }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    // Absent keeps the default; an explicit null turns the state's watch off.
    if c.contains(.background) {
      background = try c.decodeIfPresent(CPUBudgetSettings.self, forKey: .background)
    }
    foreground = try c.decodeIfPresent(CPUBudgetSettings.self, forKey: .foreground)
    if foreground?.killAfter != nil {
      throw DecodingError.dataCorruptedError(
        forKey: .foreground, in: c,
        debugDescription: "killAfter is for background apps only: a foreground app's CPU exception is reported, "
          + "never fatal (as on iOS)")
    }
  }

  /// The budgets for the policy, scaled by the config's `timeScale`.
  public func policyConfig(timeScale: Double) -> CPUMonitorConfig {
    CPUMonitorConfig(background: background?.budget, foreground: foreground?.budget).scaled(by: timeScale)
  }
}

/// One state's CPU budget in the config: `{ limit: 80, window: "60s", killAfter: "60s" }`.
public struct CPUBudgetSettings: Sendable, Codable, Equatable {
  /// Percent of one core averaged over the window (above 100 for several cores).
  public var limit: Double
  public var window: ConfigDuration
  /// How long past its CPU exception an app may stay over before it is killed; null: never.
  public var killAfter: ConfigDuration?

  init(_ budget: CPUBudget) {
    limit = budget.limitPercent
    window = ConfigDuration(budget.window)
    killAfter = budget.killAfter.map(ConfigDuration.init)
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case limit, window, killAfter }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    limit = try c.decode(Double.self, forKey: .limit)
    window = try c.decode(ConfigDuration.self, forKey: .window)
    killAfter = try c.decodeIfPresent(ConfigDuration.self, forKey: .killAfter)
    if !(limit > 0 && limit <= 100_000) {
      throw DecodingError.dataCorruptedError(
        forKey: .limit, in: c,
        debugDescription: "\(limit) is not a CPU budget (above 0, at most 100000 percent of a core)")
    }
    if window.duration < .seconds(1) {
      throw DecodingError.dataCorruptedError(
        forKey: .window, in: c, debugDescription: "must be at least 1s (the monitor samples twelve times a window)")
    }
  }

  var budget: CPUBudget {
    CPUBudget(limitPercent: limit, window: window.duration, killAfter: killAfter?.duration)
  }
}
