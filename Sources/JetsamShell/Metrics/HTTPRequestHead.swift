/// The head of one HTTP/1.x request (RFC 9112): the request line, and header fields checked for shape but not
/// kept (the metrics endpoint needs none of them).
public struct HTTPRequestHead: Sendable, Equatable {
  /// The longest head taken, request line and header fields together: far more than a scraper sends (Prometheus
  /// sends about 300 bytes), and little enough to hold for every open connection.
  public static let maxBytes = 8 * 1024

  public var method: String
  /// As sent: the path and any `?query`.
  public var target: String
  /// `HTTP/1.0` or `HTTP/1.1`.
  public var version: String

  public init(method: String, target: String, version: String) {
    self.method = method
    self.target = target
    self.version = version
  }

  /// The target's path: what comes before any `?query`.
  public var path: Substring { target.prefix { $0 != "?" } }

  /// What a parse of the bytes read so far found.
  public enum Parsed: Sendable, Equatable {
    /// No blank line yet: more bytes are needed (while fewer than ``maxBytes`` have come).
    case incomplete
    case request(HTTPRequestHead)
    /// Not a request this endpoint takes: the status to answer with, and why.
    case refused(HTTPStatus, String)
  }

  /// Parses the bytes read so far. A head that has not ended within ``maxBytes`` is refused, as is one that is
  /// not HTTP/1.x or is malformed.
  public static func parse(_ bytes: [UInt8]) -> Parsed {
    // Empty lines before the request line are ignored (RFC 9112 §2.2), as are bare LF line ends.
    var start = 0
    while start < bytes.count && (bytes[start] == 13 || bytes[start] == 10) { start += 1 }
    guard let end = headEnd(bytes, from: start) else {
      return bytes.count >= maxBytes ? .refused(.headTooLarge, "request head over \(maxBytes) bytes") : .incomplete
    }
    guard end <= maxBytes else { return .refused(.headTooLarge, "request head over \(maxBytes) bytes") }
    var lines = bytes[start..<end].split(separator: 10, omittingEmptySubsequences: false).map { line in
      line.last == 13 ? line.dropLast() : line
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let requestLine = lines.first else { return .refused(.badRequest, "no request line") }
    let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
      return .refused(.badRequest, "the request line is not METHOD TARGET HTTP/1.x")
    }
    guard parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ (0x21...0x7E).contains($0) }) else {
      return .refused(.badRequest, "the target is not a path")
    }
    let version = String(decoding: parts[2], as: UTF8.self)
    guard version.wholeMatch(of: /HTTP\/[0-9]\.[0-9]/) != nil else {
      return .refused(.badRequest, "the request line is not METHOD TARGET HTTP/1.x")
    }
    guard version.hasPrefix("HTTP/1.") else { return .refused(.versionNotSupported, "\(version) is not spoken here") }
    for field in lines.dropFirst() {
      // `name: value`, the name a token right up to the colon (a space before it is refused, RFC 9112 §5.1).
      guard let colon = field.firstIndex(of: UInt8(ascii: ":")), colon > field.startIndex,
        field[..<colon].allSatisfy(isTokenByte)
      else { return .refused(.badRequest, "a header field is not NAME: VALUE") }
    }
    return .request(
      HTTPRequestHead(
        method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
        version: version))
  }

  /// Where the head's last line ends (the index of the blank line's LF, excluded), or nil before it has come.
  private static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
    var index = start
    while index < bytes.count {
      if bytes[index] == 10 {
        // A line feed followed by an empty line (CRLF or a bare LF) ends the head.
        if index + 1 < bytes.count && bytes[index + 1] == 10 { return index + 1 }
        if index + 2 < bytes.count && bytes[index + 1] == 13 && bytes[index + 2] == 10 { return index + 1 }
      }
      index += 1
    }
    return nil
  }

  /// A `tchar` of RFC 9110 §5.6.2: what method and field names are made of.
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      return true
    default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }
}
