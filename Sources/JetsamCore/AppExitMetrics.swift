/// MetricKit's exit counts (`MXAppExitMetric`): how many exits of each reason an app had in the foreground and in
/// the background (suspended counts as background, as on iOS). Every exit record counts exactly once.
public struct AppExitMetrics: Codable, Sendable, Equatable {
  public var foregroundExitData = ExitCounts(section: .foreground)
  public var backgroundExitData = ExitCounts(section: .background)

  public init() {}

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    foregroundExitData = try container.decode(ExitCounts.self, forKey: .foregroundExitData)
    foregroundExitData.section = .foreground
    backgroundExitData = try container.decode(ExitCounts.self, forKey: .backgroundExitData)
  }

  /// Counts one exit record.
  public mutating func count(_ record: ExitRecord) {
    if record.lifecycle.state == .foreground {
      foregroundExitData.counts[record.cause.reason, default: 0] += 1
    } else {
      backgroundExitData.counts[record.cause.reason, default: 0] += 1
    }
  }

  /// How many exits are counted in all.
  public var total: Int { foregroundExitData.total + backgroundExitData.total }
}
