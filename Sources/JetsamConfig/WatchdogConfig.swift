import FoundationEssentials
import JetsamCore

/// How long each lifecycle event's handler may take before the watchdog kills the app (iOS defaults), and what it
/// does while a debugger is attached.
public struct WatchdogConfig: Sendable, Codable, Equatable {
  public var launch = ConfigDuration(.seconds(20))
  public var foreground = ConfigDuration(.seconds(10))
  public var background = ConfigDuration(.seconds(5))
  public var terminate = ConfigDuration(.seconds(5))
  /// `hold` (iOS: no watchdog kill while a debugger is attached; the deadline runs again once it went) or `kill`.
  public var underDebugger = WatchdogDebuggerRule.hold
  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case launch, foreground, background, terminate, underDebugger }
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = WatchdogConfig()
    launch = try c.decodeIfPresent(ConfigDuration.self, forKey: .launch) ?? d.launch
    foreground = try c.decodeIfPresent(ConfigDuration.self, forKey: .foreground) ?? d.foreground
    background = try c.decodeIfPresent(ConfigDuration.self, forKey: .background) ?? d.background
    terminate = try c.decodeIfPresent(ConfigDuration.self, forKey: .terminate) ?? d.terminate
    underDebugger = try c.decodeChoiceIfPresent(WatchdogDebuggerRule.self, forKey: .underDebugger) ?? d.underDebugger
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(launch, forKey: .launch)
    try c.encode(foreground, forKey: .foreground)
    try c.encode(background, forKey: .background)
    try c.encode(terminate, forKey: .terminate)
    try c.encode(underDebugger.rawValue, forKey: .underDebugger)
  }
}
