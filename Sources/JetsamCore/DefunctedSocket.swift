/// A network socket of an app's process that was destroyed at its suspension, as the kernel described it.
public struct DefunctedSocket: Codable, Hashable, Sendable {
  /// `tcp` or `udp`.
  public var `protocol`: String
  /// The local address and port: `127.0.0.1:8080`, `[::1]:8080`.
  public var local: String
  /// The peer's address and port (`0.0.0.0:0` or `[::]:0` for a listener or an unconnected UDP socket).
  public var remote: String
  /// The socket's state as `ss` names it: `established`, `listen`, `close-wait`… (`unconnected` for UDP unconnected).
  public var state: String
  /// The process that held it (the first found, when several share it).
  public var pid: Int32

  public init(protocol: String, local: String, remote: String, state: String, pid: Int32) {
    self.protocol = `protocol`
    self.local = local
    self.remote = remote
    self.state = state
    self.pid = pid
  }

  /// `tcp 127.0.0.1:8080 → 127.0.0.1:41234 established (pid 12)`.
  public var summary: String { "\(`protocol`) \(local) → \(remote) \(state) (pid \(pid))" }
}
