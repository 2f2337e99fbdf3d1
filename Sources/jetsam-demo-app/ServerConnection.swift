import Foundation

/// The demo app's connection to a server (`--server HOST:PORT`, or the lab's `JETSAM_CHECK_SERVER`): it says hello at
/// launch and on every return to the foreground. A suspended app's sockets are defuncted (iOS; jetsamd's default), so
/// it closes the connection at didEnterBackground and opens a new one at willEnterForeground, unless told to keep it
/// (`--keep-connection`, the bug).
final class ServerConnection {
  private let host: String
  private let port: UInt16
  private var fd: Int32 = -1

  /// A connection to `address` (`HOST:PORT`, an IPv4 host), not opened yet; nil for an address it cannot take.
  init?(address: String) {
    guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
      return nil
    }
    host = String(address[..<colon])
    self.port = port
  }

  /// Opens a new connection (closing any old one) and says hello on it: what came of it, for the event's line.
  func reconnect() -> String {
    close()
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return "connect=failed(\(String(cString: strerror(errno))))" }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      let problem = String(cString: strerror(errno))
      close()
      return "connect=failed(\(problem))"
    }
    return "connect=ok " + hello()
  }

  /// Says hello on the connection it holds: `hello=ok`, or the error (`Software caused connection abort` on a
  /// connection defuncted while the app was suspended).
  func hello() -> String {
    guard fd >= 0 else { return "hello=no-connection" }
    let line = Array("hello\n".utf8)
    // MSG_NOSIGNAL: a reset connection answers EPIPE rather than killing the app with SIGPIPE.
    let sent = send(fd, line, line.count, Int32(MSG_NOSIGNAL))
    return sent == line.count ? "hello=ok" : "hello=failed(\(String(cString: strerror(errno))))"
  }

  /// Closes the connection, if open.
  func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }
}
