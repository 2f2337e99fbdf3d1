import Foundation
import Glibc
import JetsamPlatform

/// The server the battery's `sockets` check offers the program under test: a TCP listener on 127.0.0.1 whose address
/// the program gets in ``variable``, and what it saw of each connection (when it was accepted, when bytes last
/// arrived, when it closed or was reset), on the daemon's clock (CLOCK_MONOTONIC, as the watch stream's changes).
/// One thread serves it, waiting in poll(2) on the listener, the connections and a pipe that stops it.
final class CheckServer: @unchecked Sendable {
  /// The environment variable that tells the program the server's `HOST:PORT`.
  static let variable = "JETSAM_CHECK_SERVER"

  /// One connection, as the server saw it.
  struct Connection {
    var accepted: Int64
    var lastData: Int64?
    var closed: Int64?
    /// Whether it ended with a reset (what the peer of a defunct socket gets) rather than an orderly close.
    var reset = false
  }

  /// `127.0.0.1:PORT`.
  let address: String
  private let listener: Int32
  private let stop: [Int32]
  private let lock = NSLock()
  private var seen: [Int32: Connection] = [:]
  private var ended: [Connection] = []

  init() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw LabError("the sockets check's server: \(SystemError.current("socket"))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
      }
    }
    var ends: [Int32] = [-1, -1]
    guard listening, pipe(&ends) == 0 else {
      let error = SystemError.current("listening on 127.0.0.1")
      Glibc.close(listener)
      throw LabError("the sockets check's server: \(error)")
    }
    // Not to be inherited by the battery's jetsamd, its child.
    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    stop = ends
    self.listener = listener
    self.address = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    Thread { [self] in serve() }.start()
  }

  /// Stops serving: the thread closes every descriptor as it leaves.
  func close() {
    var one: UInt8 = 1
    _ = Glibc.write(stop[1], &one, 1)
    Glibc.close(stop[1])
  }

  /// Every connection seen so far, open or not.
  var connections: [Connection] { lock.withLock { ended + Array(seen.values) } }

  /// Whether the program holds a connection the server has not seen closed.
  var hasOpenConnection: Bool { lock.withLock { !seen.isEmpty } }

  private func serve() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let open = lock.withLock { Array(seen.keys) }
      var entries = ([stop[0], listener] + open).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      guard poll(&entries, nfds_t(entries.count), -1) >= 0 || errno == EINTR else { break }
      if entries[0].revents != 0 { break }
      let now = MonotonicClock.now().nanoseconds
      if entries[1].revents != 0 {
        let fd = accept(listener, nil, nil)
        if fd >= 0 {
          _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
          lock.withLock { seen[fd] = Connection(accepted: now) }
        }
      }
      for entry in entries.dropFirst(2) where entry.revents != 0 {
        let count = read(entry.fd, &buffer, buffer.count)
        let reset = count < 0 && errno == ECONNRESET
        lock.withLock {
          if count > 0 {
            seen[entry.fd]?.lastData = now
          } else if var connection = seen.removeValue(forKey: entry.fd) {
            // An orderly close or a reset (a defunct socket's peer gets one): either way it is over.
            connection.closed = now
            connection.reset = reset
            ended.append(connection)
            Glibc.close(entry.fd)
          }
        }
      }
    }
    lock.withLock {
      for fd in seen.keys { Glibc.close(fd) }
      seen = [:]
    }
    Glibc.close(listener)
    Glibc.close(stop[0])
  }
}
