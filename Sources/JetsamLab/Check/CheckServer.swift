import Foundation
import Glibc
import JetsamDaemonProcess
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
    let bound: (fd: FileDescriptor, port: UInt16)
    do { bound = try LoopbackListener.bind() } catch { throw LabError("the sockets check's server: \(error)") }
    let listener = bound.fd.rawValue
    // Not to be inherited by the battery's jetsamd, its child: close-on-exec.
    let ends: (read: FileDescriptor, write: FileDescriptor)
    do { ends = try outputPipe(nonblockingRead: false) } catch {
      Glibc.close(listener)
      throw LabError("the sockets check's server: \(error)")
    }
    stop = [ends.read.rawValue, ends.write.rawValue]
    self.listener = listener
    self.address = "127.0.0.1:\(bound.port)"
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
