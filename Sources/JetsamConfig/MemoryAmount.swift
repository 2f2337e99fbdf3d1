import FoundationEssentials
import JetsamProtocol

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
