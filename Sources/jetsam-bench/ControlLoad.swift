import Foundation
import Glibc
import JetsamControlClient
import Synchronization

/// Clients that misbehave on one jetsamd's control socket: connections that write requests and never read a
/// reply (each writes until its socket is full, then just sits there), and one firehose that writes requests as
/// fast as the daemon takes them. Opened after the measured clients, so the connection cap refuses slow ones, not
/// them.
final class ControlLoad: @unchecked Sendable {
  /// Slow connections tried, and those the daemon kept open (it refuses those past its connection cap).
  let triedSlow: Int
  private(set) var heldSlow = 0
  private var slow: [ControlClient] = []
  /// Used by the firehose thread only, once started.
  private let firehose: ControlClient
  private let running = Atomic(true)
  private let firehoseRequests = Atomic(0)
  private let firehoseDone = DispatchSemaphore(value: 0)

  /// Requests the firehose has written.
  var firehoseCount: Int { firehoseRequests.load(ordering: .relaxed) }

  init(socket: String, slowConnections: Int) throws {
    triedSlow = slowConnections
    let burst = Array(repeating: Array((#"{"v":1,"verb":"status"}"# + "\n").utf8), count: 64).flatMap { $0 }
    firehose = try ControlClient(path: socket)
    Thread.detachNewThread { [self] in
      // Writes requests whenever the socket takes them and reads every answer, never blocking on either: a
      // firehose that also waited in a write would stop reading, and jetsamd stops serving a client that does not
      // read (it would be a slow client then).
      let fd = firehose.socketDescriptor
      var sink = [UInt8](repeating: 0, count: 1 << 16)
      var pending = burst[...]
      while running.load(ordering: .relaxed) {
        let sent = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if sent > 0 {
          pending = pending.dropFirst(sent)
          if pending.isEmpty {
            pending = burst[...]
            firehoseRequests.add(64, ordering: .relaxed)
          }
        }
        var received = 0
        while true {
          let count = recv(fd, &sink, sink.count, Int32(MSG_DONTWAIT))
          if count <= 0 { break }
          received += count
        }
        if sent <= 0 && received == 0 {
          var poll = pollfd(fd: fd, events: Int16(POLLIN | POLLOUT), revents: 0)
          _ = Glibc.poll(&poll, 1, 10)
          if poll.revents & Int16(POLLHUP | POLLERR) != 0 { break }
        }
      }
      firehoseDone.signal()
    }
    for _ in 0..<slowConnections {
      guard let client = try? ControlClient(path: socket) else { continue }
      let fd = client.socketDescriptor
      // Write until the socket takes no more, and never read.
      while burst.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
      slow.append(client)
    }
    // A refused connection gets tooManyConnections and is closed by the daemon: count the others.
    usleep(200_000)
    heldSlow = slow.count { !Self.refused($0.socketDescriptor) }
  }

  /// Stops the firehose and closes every connection.
  func stop() {
    guard running.exchange(false, ordering: .relaxed) else { return }
    firehoseDone.wait()
    slow = []
  }

  /// Whether the first answer waiting on `fd` is the connection cap's refusal, or the daemon closed it.
  private static func refused(_ fd: Int32) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = recv(fd, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
    if count == 0 { return true }
    return count > 0 && String(decoding: buffer.prefix(count), as: UTF8.self).contains("tooManyConnections")
  }
}
