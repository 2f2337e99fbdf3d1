import FoundationEssentials
import JetsamCore

/// Thresholds per level, each as bytes or a percentage of RAM available.
public struct ThresholdConfig: Sendable, Codable, Equatable {
  public struct Bounds: Sendable, Codable, Equatable {
    public var enter: MemoryAmount
    public var clear: MemoryAmount
    enum CodingKeys: String, CodingKey, CaseIterable { case enter, clear }
    public init(enter: MemoryAmount, clear: MemoryAmount) {
      self.enter = enter
      self.clear = clear
    }
    public init(from decoder: any Decoder) throws {
      try decoder.rejectUnknownKeys(CodingKeys.self)
      let c = try decoder.container(keyedBy: CodingKeys.self)
      enter = try c.decode(MemoryAmount.self, forKey: .enter)
      clear = try c.decode(MemoryAmount.self, forKey: .clear)
    }
  }

  public var warning = Bounds(enter: .percentOfRAM(25), clear: .percentOfRAM(30))
  public var urgent = Bounds(enter: .percentOfRAM(15), clear: .percentOfRAM(20))
  public var critical = Bounds(enter: .percentOfRAM(5), clear: .percentOfRAM(10))

  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case warning, urgent, critical }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = ThresholdConfig()
    warning = try c.decodeIfPresent(Bounds.self, forKey: .warning) ?? d.warning
    urgent = try c.decodeIfPresent(Bounds.self, forKey: .urgent) ?? d.urgent
    critical = try c.decodeIfPresent(Bounds.self, forKey: .critical) ?? d.critical
  }

  /// The thresholds in bytes for a device with `ram` bytes.
  public func resolved(ram: Int64) -> PressureThresholds {
    func bounds(_ b: Bounds) -> PressureThresholds.Bounds {
      .init(enter: b.enter.bytes(ofRAM: ram), clear: b.clear.bytes(ofRAM: ram))
    }
    return PressureThresholds(warning: bounds(warning), urgent: bounds(urgent), critical: bounds(critical))
  }
}
