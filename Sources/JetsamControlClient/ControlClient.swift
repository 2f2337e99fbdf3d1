import Foundation
import Glibc
import JetsamProtocol

/// Why talking to jetsamd failed (not a refusal: those are responses with `ok: false`).
public struct ControlClientError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A blocking client of jetsamd's control socket: one JSON request line out, response lines in
/// (PROTOCOL-CONTROL.md). Used by jetsamctl and by `make bench`.
public final class ControlClient {
  private let fd: Int32
  private var buffer: [UInt8] = []
  private let encoder = JSONEncoder()
  private let decoder = JSONDecoder()
  /// The socket's path.
  public let path: String

  /// Connects to the socket at `path`.
  ///
  /// The failure paths leave the descriptor to `deinit`: Swift runs it when a class initializer throws after every
  /// stored property is set, so closing here too would close a number another thread may have opened meanwhile.
  public init(path: String) throws(ControlClientError) {
    self.path = path
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ControlClientError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw ControlClientError("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if result != 0 {
      let reason = String(cString: strerror(errno))
      throw ControlClientError(
        "cannot reach jetsamd at \(path): \(reason) (is jetsamd running? --socket or JETSAM_SOCKET choose another socket)"
      )
    }
  }

  deinit { if fd >= 0 { close(fd) } }

  /// The connected socket, for callers that write or read without blocking (the bench's misbehaving clients);
  /// it stays this client's to close.
  public var socketDescriptor: Int32 { fd }

  /// A request as the bytes of one line (encode ahead of a timed section).
  public func encode(_ request: ControlRequest) throws -> [UInt8] {
    Array(try encoder.encode(request)) + [UInt8(ascii: "\n")]
  }

  /// Sends a request and returns the first response line (ok or not).
  public func send(_ request: ControlRequest) throws -> ControlResponse {
    try send(line: try encode(request))
  }

  /// Sends one pre-encoded line and returns the response.
  public func send(line: [UInt8]) throws(ControlClientError) -> ControlResponse {
    try decode(try exchange(line: line))
  }

  /// Sends one pre-encoded line and returns the response line undecoded (see ``nextLine()``).
  public func exchange(line: [UInt8]) throws(ControlClientError) -> [UInt8] {
    try write(line)
    guard let response = try nextLine() else { throw ControlClientError("jetsamd closed the connection") }
    return response
  }

  /// Writes every line at once, then reads one response per line.
  public func pipeline(_ lines: [[UInt8]]) throws(ControlClientError) -> [ControlResponse] {
    try write(lines.flatMap { $0 })
    var responses: [ControlResponse] = []
    for _ in lines {
      guard let response = try nextResponse() else { throw ControlClientError("jetsamd closed the connection") }
      responses.append(response)
    }
    return responses
  }

  /// Writes bytes as they are, without waiting for an answer: tests send malformed, split and oversized requests
  /// this way, then read what comes back with ``nextResponse()``.
  public func write(raw bytes: [UInt8]) throws(ControlClientError) {
    try write(bytes)
  }

  /// The next response line (`exits --follow` streams them), or nil when the daemon closed the connection.
  public func nextResponse() throws(ControlClientError) -> ControlResponse? {
    guard let line = try nextLine() else { return nil }
    return try decode(line)
  }

  /// Decodes one response line (without its newline).
  public func decode(_ line: [UInt8]) throws(ControlClientError) -> ControlResponse {
    do {
      return try decoder.decode(ControlResponse.self, from: Data(line))
    } catch {
      throw ControlClientError("unreadable reply from jetsamd: \(error)")
    }
  }

  /// The next response line as it came, without its newline (nil when the daemon closed the connection): the
  /// bench stops its clock here, before decoding, so that the client's JSON parsing is not counted as jetsamd's.
  public func nextLine() throws(ControlClientError) -> [UInt8]? {
    // Only the bytes read since the last look can hold the newline: a 300 KB answer arrives in several reads.
    var searched = 0
    while true {
      if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return line
      }
      searched = buffer.count
      let n = try readChunk()
      if n == 0 { return nil }
    }
  }

  /// Whether a whole response line is already read (``nextLine()`` returns it without touching the socket): a
  /// caller that waits for the socket with poll(2) must drain these first.
  public var hasBufferedLine: Bool { buffer.contains(UInt8(ascii: "\n")) }

  /// Appends what the socket has (blocking until something arrives) to `buffer`; 0 at the end of the stream.
  private func readChunk() throws(ControlClientError) -> Int {
    while true {
      let n = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { chunk in
        let n = recv(fd, chunk.baseAddress, chunk.count, 0)
        if n > 0 { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<n])) }
        return n
      }
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw ControlClientError("reading from jetsamd: \(String(cString: strerror(errno)))")
    }
  }

  private func write(_ bytes: [UInt8]) throws(ControlClientError) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw ControlClientError("sending to jetsamd: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
  }
}
