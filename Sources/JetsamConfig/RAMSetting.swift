import FoundationEssentials
import JetsamProtocol

/// The device's RAM: a size, or the whole host.
public enum RAMSetting: Sendable, Codable, Equatable {
  case bytes(Int64)
  case host

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if (try? container.decode(String.self)) == "host" {
      self = .host
    } else {
      self = .bytes(try ByteSize(from: decoder).bytes)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .host: try container.encode("host")
    case .bytes(let b): try container.encode(b)
    }
  }
}
