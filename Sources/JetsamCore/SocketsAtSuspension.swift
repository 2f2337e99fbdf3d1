/// What becomes of an app's network sockets when it is suspended.
public enum SocketsAtSuspension: String, Sendable, Codable, Equatable, CaseIterable {
  /// iOS: the system defuncts a suspended app's sockets (TCP connections and listeners, UDP sockets), and the app
  /// sees `ECONNABORTED` (or the nearest error) when it uses them after its return (Apple's TN2277, "Networking and
  /// Multitasking").
  case defunct
  /// Left as they are: they work again once the app runs (what a plain SIGSTOP gives).
  case keep
}
