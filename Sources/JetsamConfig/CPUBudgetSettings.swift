import FoundationEssentials
import JetsamCore

/// One CPU limit in the config: `{ limit: 80, window: "60s" }`, percent of a core over a trailing window.
public struct CPUBudgetSettings: Sendable, Codable, Equatable {
  /// Percent of one core averaged over the window (above 100 for several cores).
  public var limit: Double
  public var window: ConfigDuration

  init(_ budget: CPUBudget) {
    limit = budget.limitPercent
    window = ConfigDuration(budget.window)
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case limit, window }
  /// Keys of the earlier config shape, named in its error.
  private enum FormerKeys: String, CodingKey { case killAfter }

  public init(from decoder: any Decoder) throws {
    if let former = try? decoder.container(keyedBy: FormerKeys.self), former.contains(.killAfter) {
      throw DecodingError.dataCorruptedError(
        forKey: .killAfter, in: former,
        debugDescription: "was removed: as on iOS, the fatal limit kills as soon as the window's CPU time reaches "
          + "it; give `fatal: { limit, window }` and `nonFatal: { limit, window }` (the exception only)")
    }
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    limit = try c.decode(Double.self, forKey: .limit)
    window = try c.decode(ConfigDuration.self, forKey: .window)
    if !(limit > 0 && limit <= 100_000) {
      throw DecodingError.dataCorruptedError(
        forKey: .limit, in: c,
        debugDescription: "\(limit) is not a CPU limit (above 0, at most 100000 percent of a core)")
    }
    if window.duration < .seconds(1) {
      throw DecodingError.dataCorruptedError(
        forKey: .window, in: c, debugDescription: "must be at least 1s (the monitor samples twelve times a window)")
    }
  }

  var budget: CPUBudget { CPUBudget(limitPercent: limit, window: window.duration) }
}
