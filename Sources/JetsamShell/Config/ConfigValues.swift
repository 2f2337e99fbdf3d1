import FoundationEssentials
import JetsamProtocol

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

/// A memory amount that is either absolute (`512M`) or a share of the device's RAM (`25%`).
public enum MemoryAmount: Hashable, Sendable, Codable {
  case bytes(Int64)
  case percentOfRAM(Double)

  /// The amount in bytes on a device with `ram` bytes.
  public func bytes(ofRAM ram: Int64) -> Int64 {
    switch self {
    case .bytes(let b): b
    case .percentOfRAM(let p): Int64(Double(ram) * p / 100)
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let text = try? container.decode(String.self), text.hasSuffix("%") {
      guard let percent = Double(text.dropLast()), percent.isFinite, (0...100).contains(percent) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a percentage")
      }
      self = .percentOfRAM(percent)
    } else {
      self = .bytes(try ByteSize(from: decoder).bytes)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .bytes(let b): try container.encode(b)
    case .percentOfRAM(let p): try container.encode("\(p)%")
    }
  }
}

/// A key the decoder did not expect, used to reject unknown config keys instead of silently ignoring them.
struct AnyCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

extension Decoder {
  /// Throws a decoding error naming the first key of this object that is not in `known`.
  func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ keys: Key.Type) throws {
    let container = try self.container(keyedBy: AnyCodingKey.self)
    let known = Set(Key.allCases.map(\.stringValue))
    for key in container.allKeys where !known.contains(key.stringValue) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: codingPath + [key],
          debugDescription: "unknown key (known keys: \(known.sorted().joined(separator: ", ")))"))
    }
  }
}
