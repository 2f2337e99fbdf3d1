/// How a process ended, as the kernel reported it (waitid's si_code and si_status).
public enum ProcessEnd: Hashable, Sendable, Codable {
  /// `exit(code)` or returning from main.
  case exited(code: Int32)
  /// Killed by a signal (`dumpedCore` when the kernel wrote a core or would have).
  case signaled(signal: Int32, dumpedCore: Bool)
  /// It ended while no jetsamd was watching and the kernel kept no status (reported honestly as such).
  case unobserved
}

/// Signal numbers the classification needs (Linux x86-64 and arm64 agree on these).
public enum SignalNumber {
  public static let hangup: Int32 = 1
  public static let illegalInstruction: Int32 = 4
  public static let trap: Int32 = 5
  public static let abort: Int32 = 6
  public static let busError: Int32 = 7
  public static let kill: Int32 = 9
  public static let segmentationFault: Int32 = 11
  public static let terminate: Int32 = 15
}
