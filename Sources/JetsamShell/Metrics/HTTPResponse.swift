/// The statuses the metrics endpoint answers with.
public enum HTTPStatus: Int, Sendable, Equatable {
  case ok = 200
  case badRequest = 400
  case notFound = 404
  case methodNotAllowed = 405
  case requestTimeout = 408
  case headTooLarge = 431
  case serviceUnavailable = 503
  case versionNotSupported = 505

  public var reasonPhrase: String {
    switch self {
    case .ok: "OK"
    case .badRequest: "Bad Request"
    case .notFound: "Not Found"
    case .methodNotAllowed: "Method Not Allowed"
    case .requestTimeout: "Request Timeout"
    case .headTooLarge: "Request Header Fields Too Large"
    case .serviceUnavailable: "Service Unavailable"
    case .versionNotSupported: "HTTP Version Not Supported"
    }
  }
}

/// One HTTP/1.1 response, always the last on its connection (`Connection: close`: one request per connection
/// keeps every connection's life short and bounded; scrapers open a new one each time).
public struct HTTPResponse: Sendable, Equatable {
  public var status: HTTPStatus
  public var contentType: String
  public var body: [UInt8]
  /// The methods allowed, for a 405.
  public var allow: String?
  /// False for HEAD: the headers describe the body, which is not sent.
  public var sendsBody = true

  public init(_ status: HTTPStatus, contentType: String = "text/plain; charset=utf-8", body: String) {
    self.status = status
    self.contentType = contentType
    self.body = Array(body.utf8)
  }

  /// A refusal: the status, and why in the body.
  public static func refusal(_ status: HTTPStatus, _ reason: String) -> HTTPResponse {
    HTTPResponse(status, body: "\(status.rawValue) \(status.reasonPhrase): \(reason)\n")
  }

  /// The bytes on the wire.
  public var bytes: [UInt8] {
    var head = "HTTP/1.1 \(status.rawValue) \(status.reasonPhrase)\r\n"
    head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
    if let allow { head += "Allow: \(allow)\r\n" }
    head += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
    return Array(head.utf8) + (sendsBody ? body : [])
  }
}
