/// Where each pressure level starts and ends, in bytes of memory available to the device.
///
/// A level is entered when available memory falls to or below its `enter` value and left only when it rises
/// to or above its `clear` value (`clear > enter`): the gap is the hysteresis that keeps the level from
/// flapping while a victim's memory comes back.
public struct PressureThresholds: Hashable, Sendable, Codable {
  /// One level's pair of thresholds, in bytes available.
  public struct Bounds: Hashable, Sendable, Codable {
    /// Enter the level when available bytes fall to or below this.
    public var enter: Int64
    /// Leave the level when available bytes rise to or above this.
    public var clear: Int64
    public init(enter: Int64, clear: Int64) {
      self.enter = enter
      self.clear = clear
    }
  }

  public var warning: Bounds
  public var urgent: Bounds
  public var critical: Bounds

  public init(warning: Bounds, urgent: Bounds, critical: Bounds) {
    self.warning = warning
    self.urgent = urgent
    self.critical = critical
  }

  /// The bounds of a level above `normal` (`normal` has none).
  public func bounds(for level: PressureLevel) -> Bounds? {
    switch level {
    case .normal: nil
    case .warning: warning
    case .urgent: urgent
    case .critical: critical
    }
  }

  /// Problems with these thresholds, as `key: reason` messages; empty when they are consistent
  /// (each `clear` above its `enter`; `enter` strictly falling from warning to critical; none negative).
  public func problems() -> [String] {
    var problems: [String] = []
    for level in [PressureLevel.warning, .urgent, .critical] {
      let b = bounds(for: level)!
      if b.enter < 0 { problems.append("\(level.name).enter: must not be negative") }
      if b.clear <= b.enter { problems.append("\(level.name).clear: must be above \(level.name).enter") }
    }
    if urgent.enter >= warning.enter { problems.append("urgent.enter: must be below warning.enter") }
    if critical.enter >= urgent.enter { problems.append("critical.enter: must be below urgent.enter") }
    return problems
  }

  /// The level for `available` bytes, given the level in force now (hysteresis).
  ///
  /// The result is the highest level L such that available ≤ L.enter, or L ≤ `current` and available < L.clear.
  public func level(available: Int64, current: PressureLevel) -> PressureLevel {
    for level in [PressureLevel.critical, .urgent, .warning] {
      let b = bounds(for: level)!
      if available <= b.enter || (level <= current && available < b.clear) { return level }
    }
    return .normal
  }

  /// Thresholds as fractions of `ram`: each level's enter and clear given in percent of RAM available.
  public static func percentOfRAM(
    _ ram: Int64, warning: (Double, Double) = (25, 30), urgent: (Double, Double) = (15, 20),
    critical: (Double, Double) = (5, 10)
  ) -> PressureThresholds {
    func bytes(_ percent: Double) -> Int64 { Int64(Double(ram) * percent / 100) }
    return PressureThresholds(
      warning: Bounds(enter: bytes(warning.0), clear: bytes(warning.1)),
      urgent: Bounds(enter: bytes(urgent.0), clear: bytes(urgent.1)),
      critical: Bounds(enter: bytes(critical.0), clear: bytes(critical.1)))
  }
}
