import Foundation
import Glibc

/// A raw Unix-socket client for sending the daemon anything at all, well-formed or not.
final class RawControlClient {
  let fd: Int32
  private var buffer: [UInt8] = []

  init(path: String) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in path.utf8.enumerated() { raw[i] = b }
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(fd)
      throw HarnessError("connect \(path): \(String(cString: strerror(code)))")
    }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  /// Sends raw bytes (all of them).
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      guard n > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
      offset += n
    }
  }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  /// Reads one response line and parses it as a JSON object.
  func readResponse() throws -> [String: Any] {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Data(buffer[..<newline])
        buffer.removeSubrange(...newline)
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
          throw HarnessError("response is not an object: \(String(decoding: line, as: UTF8.self))")
        }
        return object
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { throw HarnessError("connection closed or timed out while waiting for a response") }
      buffer += chunk[0..<n]
    }
  }

  /// Sends one line and returns the response's error code and message (nil code on success).
  func errorFor(_ line: String) throws -> (code: String?, message: String) {
    try send(line + "\n")
    let response = try readResponse()
    let error = response["error"] as? [String: Any]
    return (error?["code"] as? String, error?["message"] as? String ?? "")
  }
}
