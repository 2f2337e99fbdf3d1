/// How a process ended, as the kernel reported it (waitid's si_code and si_status).
public enum ProcessEnd: Hashable, Sendable, Codable {
  /// `exit(code)` or returning from main.
  case exited(code: Int32)
  /// Killed by a signal (`dumpedCore` when the kernel wrote a core or would have). The number is kept as the kernel
  /// reported it (``Signal/rawValue``), which is also how exit records carry it.
  case signaled(signal: Int32, dumpedCore: Bool)
  /// It ended while no jetsamd was watching and the kernel kept no status (reported honestly as such).
  case unobserved
}

extension ProcessEnd {
  /// The number of the signal that ended the process, if one did.
  public var signal: Int32? {
    if case .signaled(let signal, _) = self { signal } else { nil }
  }

  /// The signal that ended the process, if one did.
  public var terminatingSignal: Signal? {
    signal.map(Signal.init(rawValue:))
  }

  /// The exit status, if the process exited.
  public var exitCode: Int32? {
    if case .exited(let code) = self { code } else { nil }
  }
}
