import Foundation
import Glibc
import JetsamCore
import JetsamProtocol

/// A blocking client of jetsamd's control socket (one JSON request line out, one response line back), kept
/// connected for a whole phase so that timed requests measure the daemon and not connection set-up.
final class ControlClient {
  private let fd: Int32
  private var buffer: [UInt8] = []
  private let encoder = JSONEncoder()
  private let decoder = JSONDecoder()
  let path: String

  init(path: String) throws {
    self.path = path
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      close(fd)
      throw BenchError("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if result != 0 {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw BenchError("cannot reach jetsamd at \(path): \(reason)")
    }
  }

  deinit { close(fd) }

  /// A request as the bytes of one line, encoded ahead of a timed section.
  func encode(_ request: ControlRequest) throws -> [UInt8] {
    Array(try encoder.encode(request)) + [UInt8(ascii: "\n")]
  }

  /// Sends a request and returns its response; throws when the daemon refuses it.
  @discardableResult
  func send(_ request: ControlRequest) throws -> ControlResponse {
    let response = try send(line: try encode(request))
    guard response.ok else {
      throw BenchError(
        "jetsamd refused \(request.verb.rawValue) \(request.app ?? ""): \(response.error?.message ?? "?")")
    }
    return response
  }

  /// Sends one pre-encoded line and returns the response (ok or not).
  func send(line: [UInt8]) throws -> ControlResponse {
    try write(line)
    return try readResponse()
  }

  /// Writes every line at once, then reads one response per line: the wall time of this is the daemon's own
  /// time for the batch plus one round trip.
  func pipeline(_ lines: [[UInt8]]) throws -> [ControlResponse] {
    try write(lines.flatMap { $0 })
    return try lines.map { _ in try readResponse() }
  }

  // MARK: Convenience verbs

  /// Launches an ad-hoc app; returns its pid.
  func launch(_ name: String, command: [String], background: Bool, band: Band? = nil) throws -> Int32 {
    var request = ControlRequest(verb: .launch, app: name)
    request.command = command
    request.background = background
    request.band = band
    guard let pid = try send(request).app?.pid else { throw BenchError("launch \(name): no pid in the answer") }
    return pid
  }

  func apps() throws -> [String: AppInfo] {
    Dictionary(uniqueKeysWithValues: (try send(ControlRequest(verb: .ps)).apps ?? []).map { ($0.name, $0) })
  }

  func status() throws -> StatusInfo {
    guard let status = try send(ControlRequest(verb: .status)).status else { throw BenchError("status: no answer") }
    return status
  }

  // MARK: Wire

  private func write(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw BenchError("sending to jetsamd: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
  }

  private func readResponse() throws -> ControlResponse {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Data(buffer[..<newline])
        buffer.removeSubrange(...newline)
        do {
          return try decoder.decode(ControlResponse.self, from: line)
        } catch {
          throw BenchError("unreadable reply from jetsamd: \(error)")
        }
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n < 0 {
        if errno == EINTR { continue }
        throw BenchError("reading from jetsamd: \(String(cString: strerror(errno)))")
      }
      if n == 0 { throw BenchError("jetsamd closed the control connection") }
      buffer += chunk[0..<n]
    }
  }
}
