/// One CPU limit: at most `limitPercent` of one core, averaged over `window`.
///
/// iOS states its limits this way in its crash logs: "exceeding limit of 80% cpu over 60 seconds" (fatal, in the
/// background) and "exceeding limit of 50% cpu over 180 seconds" (`NON-FATAL CONDITION`).
public struct CPUBudget: Sendable, Equatable {
  /// Percent of one core (above 100 for apps that may use several cores).
  public var limitPercent: Double
  /// The trailing window the usage is measured over.
  public var window: Duration

  public init(limitPercent: Double, window: Duration) {
    self.limitPercent = limitPercent
    self.window = window
  }

  /// The CPU-seconds the limit allows in one window: reaching them is going over it.
  public var allowedSeconds: Double { limitPercent / 100 * window.seconds }

  /// The limit with its window multiplied by `scale` (the config's `timeScale`).
  public func scaled(by scale: Double) -> CPUBudget {
    CPUBudget(limitPercent: limitPercent, window: window.scaled(by: scale))
  }
}

// Kept in the state file with an app's settings: windows as seconds.
extension CPUBudget: Codable {
  enum CodingKeys: String, CodingKey { case limitPercent, windowSeconds }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    limitPercent = try c.decode(Double.self, forKey: .limitPercent)
    window = .seconds(try c.decode(Double.self, forKey: .windowSeconds))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(limitPercent, forKey: .limitPercent)
    try c.encode(window.seconds, forKey: .windowSeconds)
  }
}
