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
