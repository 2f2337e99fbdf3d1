/// A signal number with a Swift name.
///
/// A plain value with the Linux numbers written out, so that the pure core can name signals without importing
/// Glibc; x86-64 and arm64 number them alike, and JetsamShellTests checks every number against Glibc's `SIG*`
/// constant.
public struct Signal: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  /// The C signal number.
  public let rawValue: Int32

  /// The signal with this number (any number: real-time signals have no name here).
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// Hangup. The corresponding C constant is `SIGHUP`.
  public static let hangup = Signal(rawValue: 1)
  /// Interrupt from the keyboard. The corresponding C constant is `SIGINT`.
  public static let interrupt = Signal(rawValue: 2)
  /// Quit with a core dump. The corresponding C constant is `SIGQUIT`.
  public static let quit = Signal(rawValue: 3)
  /// Illegal instruction. The corresponding C constant is `SIGILL`.
  public static let illegalInstruction = Signal(rawValue: 4)
  /// Trace or breakpoint trap. The corresponding C constant is `SIGTRAP`.
  public static let trap = Signal(rawValue: 5)
  /// Abort, as from `abort()`. The corresponding C constant is `SIGABRT`.
  public static let abort = Signal(rawValue: 6)
  /// Bus error (e.g. touching a mapping beyond the end of its file). The corresponding C constant is `SIGBUS`.
  public static let busError = Signal(rawValue: 7)
  /// Arithmetic error. The corresponding C constant is `SIGFPE`.
  public static let floatingPointException = Signal(rawValue: 8)
  /// Kill; cannot be caught, blocked or ignored. The corresponding C constant is `SIGKILL`.
  public static let kill = Signal(rawValue: 9)
  /// User-defined signal 1. The corresponding C constant is `SIGUSR1`.
  public static let user1 = Signal(rawValue: 10)
  /// Invalid memory reference. The corresponding C constant is `SIGSEGV`.
  public static let segmentationFault = Signal(rawValue: 11)
  /// User-defined signal 2. The corresponding C constant is `SIGUSR2`.
  public static let user2 = Signal(rawValue: 12)
  /// Write to a pipe with no reader. The corresponding C constant is `SIGPIPE`.
  public static let brokenPipe = Signal(rawValue: 13)
  /// Timer expiry. The corresponding C constant is `SIGALRM`.
  public static let alarm = Signal(rawValue: 14)
  /// Polite termination request. The corresponding C constant is `SIGTERM`.
  public static let terminate = Signal(rawValue: 15)
  /// A child stopped or ended. The corresponding C constant is `SIGCHLD`.
  public static let childStatusChanged = Signal(rawValue: 17)
  /// Continue a stopped process. The corresponding C constant is `SIGCONT`.
  public static let resume = Signal(rawValue: 18)
  /// Stop; cannot be caught, blocked or ignored (state `T`). The corresponding C constant is `SIGSTOP`.
  public static let stop = Signal(rawValue: 19)
  /// Stop from the terminal; can be caught. The corresponding C constant is `SIGTSTP`.
  public static let terminalStop = Signal(rawValue: 20)
  /// CPU time limit exceeded. The corresponding C constant is `SIGXCPU`.
  public static let cpuLimitExceeded = Signal(rawValue: 24)
  /// The terminal's window size changed. The corresponding C constant is `SIGWINCH`.
  public static let windowChange = Signal(rawValue: 28)

  /// A signal from its C name, with or without the `SIG` prefix, in any case (`SIGUSR1`, `usr1`).
  public init?(name: String) {
    let upper = name.uppercased()
    let full = upper.hasPrefix("SIG") ? upper : "SIG" + upper
    guard let number = Signal.names.first(where: { $0.value == full })?.key else { return nil }
    self.init(rawValue: number)
  }

  /// The C names of the standard signals, by number (1 to 31; 16, `SIGSTKFLT`, is unused on Linux).
  static let names: [Int32: String] = [
    1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
    9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
    17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG",
    24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR",
    31: "SIGSYS",
  ]

  /// The C name (`SIGTERM`), or `signal N` for numbers without one.
  public var description: String { Signal.names[rawValue] ?? "signal \(rawValue)" }
}
