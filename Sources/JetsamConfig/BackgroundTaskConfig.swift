import FoundationEssentials

/// Background time for apps that hold background tasks.
public struct BackgroundTaskConfig: Sendable, Codable, Equatable {
  /// From entering the background.
  public var budget = ConfigDuration(.seconds(30))
  /// backgroundTaskWillExpire goes out this long before the budget runs out.
  public var expirationWarning = ConfigDuration(.seconds(5))
  /// Tasks still open this long after the budget ran out are killed.
  public var grace = ConfigDuration(.seconds(1))
  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case budget, expirationWarning, grace }
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = BackgroundTaskConfig()
    budget = try c.decodeIfPresent(ConfigDuration.self, forKey: .budget) ?? d.budget
    expirationWarning = try c.decodeIfPresent(ConfigDuration.self, forKey: .expirationWarning) ?? d.expirationWarning
    grace = try c.decodeIfPresent(ConfigDuration.self, forKey: .grace) ?? d.grace
    if expirationWarning.duration > budget.duration {
      throw DecodingError.dataCorruptedError(
        forKey: .expirationWarning, in: c, debugDescription: "must not be longer than the budget")
    }
  }
}
