import JetsamWire

/// How short memory is on the emulated device, from the memory available to it.
public enum PressureLevel: Int, Comparable, Codable, Sendable, CaseIterable, CustomStringConvertible {
  /// Plenty of memory.
  case normal
  /// Apps are warned (iOS didReceiveMemoryWarning); nobody is killed yet.
  case warning
  /// Jetsam kills suspended apps, then background apps, until the level clears.
  case urgent
  /// Jetsam kills in every band, foreground included, until the level clears.
  case critical

  public static func < (lhs: PressureLevel, rhs: PressureLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  public var description: String { String(describing: name) }

  /// The level's name in config, records and the CLI.
  public var name: String {
    switch self {
    case .normal: "normal"
    case .warning: "warning"
    case .urgent: "urgent"
    case .critical: "critical"
    }
  }

  /// The level as a `memoryWarning` names it (`level=`); nil for normal, which warns no one.
  public var memoryWarningLevel: MemoryWarningLevelName? {
    switch self {
    case .normal: nil
    case .warning: .warning
    case .urgent: .urgent
    case .critical: .critical
    }
  }

  /// A level from its name.
  public init?(name: String) {
    guard let level = PressureLevel.allCases.first(where: { $0.name == name }) else { return nil }
    self = level
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard let level = PressureLevel(name: name) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(name)\" is not a pressure level (normal, warning, urgent, critical)")
    }
    self = level
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }
}
