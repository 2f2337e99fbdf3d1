import CJetsamShim
import Glibc
import JetsamPlatform

/// A NETLINK_SOCK_DIAG socket to the kernel's inet_diag: dumps every TCP or UDP socket of one address family
/// (all states, listeners included) and destroys one of them by the exact id a dump gave (`SOCK_DESTROY`, what
/// `ss -K` sends; it needs `CAP_NET_ADMIN` and a kernel with `CONFIG_INET_DIAG_DESTROY`). Blocking: for a helper
/// thread, never the loop.
final class InetDiagSocket {
  /// One socket of a dump: what identifies it to the kernel, and its inode (0 for a time-wait or half-open one,
  /// which no process holds).
  struct Entry {
    var message: inet_diag_msg
    var `protocol`: UInt8
    var inode: UInt64 { UInt64(message.idiag_inode) }
  }

  private let fd: FileDescriptor
  private var sequence: UInt32 = 0

  init() throws(SystemError) {
    let raw = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_SOCK_DIAG)
    guard raw >= 0 else { throw SystemError.current("socket(AF_NETLINK, NETLINK_SOCK_DIAG)") }
    fd = FileDescriptor(rawValue: raw)
  }

  deinit { fd.close() }

  /// Every socket of `family` (`AF_INET`, `AF_INET6`) and `protocol` (`IPPROTO_TCP`, `IPPROTO_UDP`), in any state.
  func dump(family: UInt8, protocol: UInt8) throws(SystemError) -> [Entry] {
    var request = inet_diag_req_v2()
    request.sdiag_family = family
    request.sdiag_protocol = `protocol`
    request.idiag_states = UInt32.max
    let seq = try send(request, flags: NLM_F_REQUEST | NLM_F_DUMP)
    var entries: [Entry] = []
    var buffer = [UInt8](repeating: 0, count: 32 * 1024)
    while true {
      let count = try receive(into: &buffer)
      var done = false
      try Self.messages(in: buffer[..<count]) { (header, payload) throws(SystemError) in
        guard header.nlmsg_seq == seq else { return }
        switch Int32(header.nlmsg_type) {
        case NLMSG_DONE: done = true
        case NLMSG_ERROR: try Self.check(payload, "inet_diag dump")
        case Int32(SOCK_DIAG_BY_FAMILY):
          guard payload.count >= MemoryLayout<inet_diag_msg>.size else { return }
          let message = payload.withUnsafeBytes { $0.loadUnaligned(as: inet_diag_msg.self) }
          entries.append(Entry(message: message, protocol: `protocol`))
        default: break
        }
      }
      if done { return entries }
    }
  }

  /// Destroys the socket `entry` names (the peer of a connection gets a reset; its holder gets `ECONNABORTED`).
  func destroy(_ entry: Entry) throws(SystemError) {
    var request = inet_diag_req_v2()
    request.sdiag_family = entry.message.idiag_family
    request.sdiag_protocol = entry.protocol
    request.idiag_states = UInt32.max
    request.id = entry.message.id
    let seq = try send(request, flags: NLM_F_REQUEST | NLM_F_ACK, type: UInt16(SOCK_DESTROY))
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = try receive(into: &buffer)
      var acknowledged = false
      try Self.messages(in: buffer[..<count]) { (header, payload) throws(SystemError) in
        guard header.nlmsg_seq == seq, Int32(header.nlmsg_type) == NLMSG_ERROR else { return }
        acknowledged = true
        try Self.check(payload, "SOCK_DESTROY")
      }
      if acknowledged { return }
    }
  }

  /// Sends one request; returns its sequence number.
  private func send(_ request: inet_diag_req_v2, flags: Int32, type: UInt16 = UInt16(SOCK_DIAG_BY_FAMILY))
    throws(SystemError) -> UInt32
  {
    sequence += 1
    let headerSize = MemoryLayout<nlmsghdr>.size
    var header = nlmsghdr()
    header.nlmsg_len = UInt32(headerSize + MemoryLayout<inet_diag_req_v2>.size)
    header.nlmsg_type = type
    header.nlmsg_flags = UInt16(flags)
    header.nlmsg_seq = sequence
    var bytes = withUnsafeBytes(of: header) { Array($0) }
    withUnsafeBytes(of: request) { bytes += $0 }
    // To the kernel (nl_pid 0).
    var kernel = sockaddr_nl()
    kernel.nl_family = sa_family_t(AF_NETLINK)
    let sent = withUnsafePointer(to: &kernel) { address in
      address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(fd.rawValue, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
      }
    }
    guard sent == bytes.count else { throw SystemError.current("sendto(NETLINK_SOCK_DIAG)") }
    return sequence
  }

  private func receive(into buffer: inout [UInt8]) throws(SystemError) -> Int {
    while true {
      let count = recv(fd.rawValue, &buffer, buffer.count, 0)
      if count > 0 { return count }
      if count < 0 && errno == EINTR { continue }
      throw count == 0
        ? SystemError(code: EIO, "recv(NETLINK_SOCK_DIAG): end of stream") : .current("recv(NETLINK_SOCK_DIAG)")
    }
  }

  /// Calls `body` with each netlink message of a datagram: its header and its payload.
  private static func messages(
    in datagram: ArraySlice<UInt8>, _ body: (nlmsghdr, ArraySlice<UInt8>) throws(SystemError) -> Void
  ) throws(SystemError) {
    let headerSize = MemoryLayout<nlmsghdr>.size
    var offset = datagram.startIndex
    while datagram.endIndex - offset >= headerSize {
      let header = datagram[offset...].withUnsafeBytes { $0.loadUnaligned(as: nlmsghdr.self) }
      let length = Int(header.nlmsg_len)
      guard length >= headerSize, offset + length <= datagram.endIndex else { return }
      try body(header, datagram[(offset + headerSize)..<(offset + length)])
      // NLMSG_ALIGN: messages start on 4-byte boundaries.
      offset += (length + 3) & ~3
    }
  }

  /// Throws the error an `NLMSG_ERROR` payload carries (a negative errno; 0 is an acknowledgement).
  private static func check(_ payload: ArraySlice<UInt8>, _ operation: String) throws(SystemError) {
    guard payload.count >= 4 else { throw SystemError(code: EIO, "\(operation): truncated netlink error") }
    let error = payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
    if error != 0 { throw SystemError(code: -error, operation) }
  }
}
