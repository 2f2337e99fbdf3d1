/// How serious the device's memory pressure is when a `memoryWarning` arrives.
///
/// Extensible: a newer daemon may send a level this client has no constant for.
public struct MemoryWarningLevel: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The protocol's `level=` value.
  public let rawValue: String

  /// Wraps a `level=` value.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Pressure rose to warning: drop caches.
  public static let warning = MemoryWarningLevel(rawValue: "warning")
  /// Pressure is urgent: free everything that can be rebuilt.
  public static let urgent = MemoryWarningLevel(rawValue: "urgent")
  /// Pressure is critical: apps are being killed.
  public static let critical = MemoryWarningLevel(rawValue: "critical")

  /// The level's protocol name.
  public var description: String { rawValue }
}
