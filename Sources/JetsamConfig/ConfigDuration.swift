import FoundationEssentials

/// A duration written as `500ms`, `10s`, `2m`, `1h`, `7d`, or a plain number of seconds.
public struct ConfigDuration: Hashable, Sendable, Codable {
  public var duration: Duration
  public init(_ duration: Duration) { self.duration = duration }

  /// The longest duration accepted: a year (longer deadlines are a mistake, and nanoseconds stay far from overflow).
  public static let maximumSeconds: Double = 365 * 86_400

  /// Parses `500ms`, `10s`, `1.5s`, `2m`, `1h`; nil when it is not a duration.
  public init?(parsing text: String) {
    let trimmed = text.trimmingWhitespace
    let digits = trimmed.prefix { $0.isNumber || $0 == "." }
    guard let value = Double(digits), value.isFinite, value >= 0 else { return nil }
    let scale: Double
    switch trimmed.dropFirst(digits.count) {
    case "ms": scale = 0.001
    case "", "s": scale = 1
    case "m": scale = 60
    case "h": scale = 3600
    case "d": scale = 86_400
    default: return nil
    }
    guard value * scale <= ConfigDuration.maximumSeconds else { return nil }
    duration = .nanoseconds(Int64(value * scale * 1e9))
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let seconds = try? container.decode(Double.self) {
      guard seconds.isFinite, (0...ConfigDuration.maximumSeconds).contains(seconds) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "\(seconds) is not a duration (0 to 365 days)")
      }
      duration = .nanoseconds(Int64(seconds * 1e9))
      return
    }
    let text = (try? container.decode(String.self)) ?? "?"
    guard let parsed = ConfigDuration(parsing: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(text)\" is not a duration (use e.g. 500ms, 10s, 2m, 7d; at most 365 days)"
      )
    }
    self = parsed
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
  }
}
