import CJetsamShim
import Glibc
import JetsamCore

extension InetDiagSocket.Entry {
  /// The socket as an announcement names it, held by `pid`.
  func described(pid: Int32) -> DefunctedSocket {
    let id = message.id
    let family = Int32(message.idiag_family)
    return DefunctedSocket(
      protocol: `protocol` == UInt8(IPPROTO_UDP) ? "udp" : "tcp",
      local: Self.endpoint(family: family, address: id.idiag_src, port: id.idiag_sport),
      remote: Self.endpoint(family: family, address: id.idiag_dst, port: id.idiag_dport),
      state: Self.stateName(message.idiag_state, udp: `protocol` == UInt8(IPPROTO_UDP)), pid: pid)
  }

  /// `127.0.0.1:80` or `[::1]:80` from inet_diag's big-endian fields.
  static func endpoint(family: Int32, address: (UInt32, UInt32, UInt32, UInt32), port: UInt16) -> String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    var raw = address
    _ = withUnsafeBytes(of: &raw) { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let number = UInt16(bigEndian: port)
    return family == AF_INET6 ? "[\(host)]:\(number)" : "\(host):\(number)"
  }

  /// The kernel's TCP state numbers (include/net/tcp_states.h) as `ss` names them; a UDP socket is `established`
  /// once connected and `unconnected` otherwise.
  static func stateName(_ state: UInt8, udp: Bool) -> String {
    if udp { return state == 1 ? "established" : "unconnected" }
    let names = [
      1: "established", 2: "syn-sent", 3: "syn-recv", 4: "fin-wait-1", 5: "fin-wait-2", 6: "time-wait", 7: "closed",
      8: "close-wait", 9: "last-ack", 10: "listen", 11: "closing", 12: "new-syn-recv",
    ]
    return names[Int(state)] ?? "state-\(state)"
  }
}
