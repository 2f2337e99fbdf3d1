import FoundationEssentials
import JetsamCore

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
