import JetsamWire

/// How serious the device's memory pressure is when a `memoryWarning` arrives.
///
/// Extensible: a newer daemon may send a level this client has no constant for. The constants are the protocol's
/// levels (``MemoryWarningLevelName``), shared with jetsamd.
public struct MemoryWarningLevel: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The protocol's `level=` value.
  public let rawValue: String

  /// Wraps a `level=` value.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// One of the levels of the protocol.
  public init(_ name: MemoryWarningLevelName) {
    self.init(rawValue: name.rawValue)
  }

  /// Pressure rose to warning: drop caches.
  public static let warning = MemoryWarningLevel(.warning)
  /// Pressure is urgent: free everything that can be rebuilt.
  public static let urgent = MemoryWarningLevel(.urgent)
  /// Pressure is critical: apps are being killed.
  public static let critical = MemoryWarningLevel(.critical)

  /// The protocol's level, if it is one this client knows.
  public var name: MemoryWarningLevelName? { MemoryWarningLevelName(rawValue: rawValue) }

  /// The level's protocol name.
  public var description: String { rawValue }
}
