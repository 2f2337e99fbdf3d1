import CJetsamShim
import Glibc
import JetsamPlatform

/// One end of a `SOCK_SEQPACKET` Unix socket: whole messages, each with the descriptors attached to it, never split
/// or merged, so that a message and its descriptors arrive together or not at all.
package struct PacketSocket {
  /// The largest message either side sends: a request carries a command line and an environment (a spawn request
  /// over this size is refused before it is sent).
  package static let maxMessageBytes = 192 * 1024

  package let fd: FileDescriptor

  package init(fd: FileDescriptor) { self.fd = fd }

  /// Sends one message with `descriptors` attached (copies of them: the caller keeps its own).
  ///
  /// - Returns: false when the socket's buffer is full (`EAGAIN`): try again once it is writable.
  /// - Throws: ``SystemError`` when the peer has gone (`EPIPE`, `ECONNRESET`) or the message is too large.
  package func send(_ bytes: [UInt8], descriptors: [FileDescriptor] = []) throws(SystemError) -> Bool {
    let fds = descriptors.map(\.rawValue)
    let sent = bytes.withUnsafeBytes { raw in
      fds.withUnsafeBufferPointer {
        jetsam_send_with_fds(fd.rawValue, raw.baseAddress, raw.count, $0.baseAddress, $0.count)
      }
    }
    if sent >= 0 { return true }
    if errno == EAGAIN || errno == EWOULDBLOCK { return false }
    throw SystemError.current("sendmsg on the spawner socket")
  }

  /// What one receive found.
  package enum Received {
    /// A whole message and the descriptors that came with it (owned by the caller).
    case message([UInt8], [FileDescriptor])
    /// Nothing waiting.
    case empty
    /// The peer hung up.
    case closed
  }

  /// Receives one message.
  ///
  /// - Throws: ``SystemError`` on a receive error, or `EMSGSIZE` for a message (or descriptor list) that did not
  ///   fit, whose descriptors are then closed.
  package func receive() throws(SystemError) -> Received {
    var buffer = [UInt8](repeating: 0, count: Self.maxMessageBytes)
    var fds = [Int32](repeating: -1, count: Int(JETSAM_MAX_MESSAGE_FDS))
    var count = 0
    var truncated: Int32 = 0
    let received = buffer.withUnsafeMutableBytes { raw in
      fds.withUnsafeMutableBufferPointer {
        jetsam_receive_with_fds(
          fd.rawValue, raw.baseAddress, raw.count, $0.baseAddress, $0.count, &count, &truncated)
      }
    }
    if received < 0 {
      if errno == EAGAIN || errno == EWOULDBLOCK { return .empty }
      throw SystemError.current("recvmsg on the spawner socket")
    }
    let descriptors = fds.prefix(count).map(FileDescriptor.init(rawValue:))
    if truncated != 0 {
      for descriptor in descriptors { descriptor.close() }
      throw SystemError(code: EMSGSIZE, "a spawner message over \(Self.maxMessageBytes) bytes or its descriptors")
    }
    // Messages are never empty: a zero-length read is the hang-up.
    if received == 0 && descriptors.isEmpty { return .closed }
    buffer.removeSubrange(received...)
    return .message(buffer, descriptors)
  }
}
