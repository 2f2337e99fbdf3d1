import FoundationEssentials

/// How long each lifecycle event's handler may take before the watchdog kills the app (iOS defaults).
public struct WatchdogConfig: Sendable, Codable, Equatable {
  public var launch = ConfigDuration(.seconds(20))
  public var foreground = ConfigDuration(.seconds(10))
  public var background = ConfigDuration(.seconds(5))
  public var terminate = ConfigDuration(.seconds(5))
  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case launch, foreground, background, terminate }
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = WatchdogConfig()
    launch = try c.decodeIfPresent(ConfigDuration.self, forKey: .launch) ?? d.launch
    foreground = try c.decodeIfPresent(ConfigDuration.self, forKey: .foreground) ?? d.foreground
    background = try c.decodeIfPresent(ConfigDuration.self, forKey: .background) ?? d.background
    terminate = try c.decodeIfPresent(ConfigDuration.self, forKey: .terminate) ?? d.terminate
  }
}
