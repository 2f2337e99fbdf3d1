import FoundationEssentials
import Glibc

/// A TCP address to listen on, `HOST:PORT`, the host numeric: an IPv4 address (`127.0.0.1:9772`, `0.0.0.0:9772`
/// for every interface) or an IPv6 one in brackets (`[::1]:9772`, `[::]:9772`). Never a name: resolving one could
/// block jetsamd's loop, and an address that moves under a name is not what a firewall rule or a scrape config
/// names.
public struct ListenAddress: Sendable, Equatable, Codable, CustomStringConvertible {
  public enum Family: Sendable, Equatable {
    case inet
    case inet6
  }

  public let family: Family
  /// The address's bytes in network order: 4 for IPv4, 16 for IPv6.
  public let addressBytes: [UInt8]
  public let port: UInt16
  /// As written in the config.
  public let description: String

  /// Parses `HOST:PORT`; the error says what is wrong with it.
  public init(parsing text: String) throws(ListenAddressError) {
    let host: Substring
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
        throw ListenAddressError("an IPv6 address goes in brackets before its port, as in [::1]:9772")
      }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
      family = .inet6
    } else {
      guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
        throw ListenAddressError(
          text.contains(":")
            ? "an IPv6 address goes in brackets before its port, as in [::1]:9772"
            : "must be HOST:PORT with a numeric address, as in 127.0.0.1:9772")
      }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
      family = .inet
    }
    guard portText.allSatisfy({ ("0"..."9").contains($0) }), portText.count <= 5, let port = UInt16(portText), port > 0
    else {
      throw ListenAddressError("the port must be a number from 1 to 65535, not \"\(portText)\"")
    }
    let domain = family == .inet ? AF_INET : AF_INET6
    var bytes = [UInt8](repeating: 0, count: family == .inet ? 4 : 16)
    // (A NUL would end the C string early: "127.0.0.1\0junk" is no address.)
    let parsed =
      host.contains("\0")
      ? 0
      : bytes.withUnsafeMutableBytes { buffer in
        inet_pton(domain, String(host), buffer.baseAddress)
      }
    guard parsed == 1 else {
      throw ListenAddressError(
        family == .inet
          ? "\"\(host)\" is not a numeric IPv4 address (jetsamd resolves no names; for IPv6 write [ADDRESS]:PORT)"
          : "\"\(host)\" is not a numeric IPv6 address")
    }
    addressBytes = bytes
    self.port = port
    description = text
  }

  /// Whether it is a loopback address, reachable from this machine only.
  public var isLoopback: Bool {
    family == .inet ? addressBytes[0] == 127 : addressBytes == [UInt8](repeating: 0, count: 15) + [1]
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    do {
      try self.init(parsing: text)
    } catch {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }

  public static func == (a: ListenAddress, b: ListenAddress) -> Bool {
    a.family == b.family && a.addressBytes == b.addressBytes && a.port == b.port
  }
}
