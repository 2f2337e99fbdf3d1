import FoundationEssentials

/// A byte count written as `512M`, `2G`, `1.5GiB`, `4096` (plain bytes) in config files and on the command line.
public struct ByteSize: Hashable, Sendable, Codable, CustomStringConvertible {
  public var bytes: Int64
  public init(bytes: Int64) { self.bytes = bytes }

  /// The largest size accepted from outside (config, requests, the command line): 1 PiB. More than any machine
  /// jetsam runs on has, and small enough that sums and roundings of a few sizes never overflow.
  public static let maximum: Int64 = 1 << 50

  /// Parses `512M`, `2G`, `1.5GiB`, `100K`, `4096`; nil when it is not a size.
  public init?(parsing text: String) {
    let trimmed = text.trimmingWhitespace
    let digits = trimmed.prefix { $0.isNumber || $0 == "." }
    var unit = trimmed.dropFirst(digits.count).lowercased()
    guard let value = Double(digits), value.isFinite, value >= 0 else { return nil }
    for suffix in ["ib", "b"] where unit.hasSuffix(suffix) && unit.count > suffix.count - 1 {
      unit = String(unit.dropLast(suffix.count))
      break
    }
    let multiplier: Double
    switch unit {
    case "": multiplier = 1
    case "k": multiplier = 1024
    case "m": multiplier = 1_048_576
    case "g": multiplier = 1_073_741_824
    case "t": multiplier = 1_099_511_627_776
    default: return nil
    }
    let scaled = (value * multiplier).rounded(.down)
    guard scaled <= Double(ByteSize.maximum) else { return nil }
    bytes = Int64(scaled)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Int64.self) {
      guard (0...ByteSize.maximum).contains(number) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "\(number) is not a size (0 to \(ByteSize.maximum) bytes, 1P)")
      }
      bytes = number
      return
    }
    // A fraction of a byte, an infinity or a list is no size either: say what a size is, not just "a string".
    guard let text = try? container.decode(String.self) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "not a size (use e.g. 512M, 2G or plain bytes, at most 1P)")
    }
    guard let size = ByteSize(parsing: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(text)\" is not a size (use e.g. 512M, 2G or plain bytes, at most 1P)")
    }
    self = size
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(bytes)
  }

  /// Human form, e.g. `512M`, `1.5G`.
  public var description: String { ByteSize.format(bytes) }

  /// Formats a byte count in the largest binary unit that keeps at least one whole unit.
  public static func format(_ bytes: Int64) -> String {
    let units: [(String, Int64)] = [("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]
    for (name, size) in units where abs(bytes) >= size {
      let value = Double(bytes) / Double(size)
      return value == value.rounded() ? "\(Int64(value))\(name)" : "\(value.formatted(decimals: 1))\(name)"
    }
    return "\(bytes)"
  }
}
