import Foundation
import Glibc
import JetsamProtocol

/// A blocking client of jetsamd's control socket: one request line out, response lines in.
final class ControlClient {
  private let fd: Int32
  private var buffer: [UInt8] = []
  private let encoder = JSONEncoder()
  private let decoder = JSONDecoder()

  init(path: String) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw CLIError.failed("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw CLIError.usage("socket path too long: \(path)")
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
      throw CLIError.failed(
        "cannot reach jetsamd at \(path): \(reason) (is jetsamd running? --socket or JETSAM_SOCKET choose another socket)"
      )
    }
  }

  deinit { close(fd) }

  /// Sends a request and returns the first response line.
  func send(_ request: ControlRequest) throws -> ControlResponse {
    var data = try encoder.encode(request)
    data.append(UInt8(ascii: "\n"))
    var offset = 0
    while offset < data.count {
      let n = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw CLIError.failed("sending to jetsamd: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
    guard let response = try nextResponse() else { throw CLIError.failed("jetsamd closed the connection") }
    return response
  }

  /// The next response line, or nil when the daemon closed the connection.
  func nextResponse() throws -> ControlResponse? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Data(buffer[..<newline])
        buffer.removeSubrange(...newline)
        do {
          return try decoder.decode(ControlResponse.self, from: line)
        } catch {
          throw CLIError.failed("unreadable reply from jetsamd: \(error)")
        }
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n < 0 {
        if errno == EINTR { continue }
        throw CLIError.failed("reading from jetsamd: \(String(cString: strerror(errno)))")
      }
      if n == 0 { return nil }
      buffer += chunk[0..<n]
    }
  }
}

/// Why jetsamctl stops: misuse (exit 64) or a failed operation (exit 1).
enum CLIError: Error {
  case usage(String)
  case failed(String)
}
