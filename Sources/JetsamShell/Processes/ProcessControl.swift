import CJetsamShim
import Glibc
import JetsamCore

/// A signal number with a Swift name.
public struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The C signal number.
  public let rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// Hangup. The corresponding C constant is `SIGHUP`.
  public static let hangup = Signal(rawValue: SIGHUP)
  /// Interrupt from the keyboard. The corresponding C constant is `SIGINT`.
  public static let interrupt = Signal(rawValue: SIGINT)
  /// Quit with a core dump. The corresponding C constant is `SIGQUIT`.
  public static let quit = Signal(rawValue: SIGQUIT)
  /// Illegal instruction. The corresponding C constant is `SIGILL`.
  public static let illegalInstruction = Signal(rawValue: SIGILL)
  /// Trace or breakpoint trap. The corresponding C constant is `SIGTRAP`.
  public static let trap = Signal(rawValue: SIGTRAP)
  /// Abort, as from `abort()`. The corresponding C constant is `SIGABRT`.
  public static let abort = Signal(rawValue: SIGABRT)
  /// Bus error (e.g. touching a mapping beyond the end of its file). The corresponding C constant is `SIGBUS`.
  public static let busError = Signal(rawValue: SIGBUS)
  /// Arithmetic error. The corresponding C constant is `SIGFPE`.
  public static let floatingPointException = Signal(rawValue: SIGFPE)
  /// Kill; cannot be caught, blocked or ignored. The corresponding C constant is `SIGKILL`.
  public static let kill = Signal(rawValue: SIGKILL)
  /// User-defined signal 1. The corresponding C constant is `SIGUSR1`.
  public static let user1 = Signal(rawValue: SIGUSR1)
  /// Invalid memory reference. The corresponding C constant is `SIGSEGV`.
  public static let segmentationFault = Signal(rawValue: SIGSEGV)
  /// User-defined signal 2. The corresponding C constant is `SIGUSR2`.
  public static let user2 = Signal(rawValue: SIGUSR2)
  /// Write to a pipe with no reader. The corresponding C constant is `SIGPIPE`.
  public static let brokenPipe = Signal(rawValue: SIGPIPE)
  /// Timer expiry. The corresponding C constant is `SIGALRM`.
  public static let alarm = Signal(rawValue: SIGALRM)
  /// Polite termination request. The corresponding C constant is `SIGTERM`.
  public static let terminate = Signal(rawValue: SIGTERM)
  /// A child stopped or ended. The corresponding C constant is `SIGCHLD`.
  public static let childStatusChanged = Signal(rawValue: SIGCHLD)
  /// Continue a stopped process. The corresponding C constant is `SIGCONT`.
  public static let resume = Signal(rawValue: SIGCONT)
  /// Stop; cannot be caught, blocked or ignored (state `T`). The corresponding C constant is `SIGSTOP`.
  public static let stop = Signal(rawValue: SIGSTOP)
  /// Stop from the terminal; can be caught. The corresponding C constant is `SIGTSTP`.
  public static let terminalStop = Signal(rawValue: SIGTSTP)
  /// CPU time limit exceeded. The corresponding C constant is `SIGXCPU`.
  public static let cpuLimitExceeded = Signal(rawValue: SIGXCPU)

  private static let names: [Int32: String] = [
    SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
    SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
    SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
    SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN",
    SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGVTALRM: "SIGVTALRM",
    SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGPWR: "SIGPWR", SIGSYS: "SIGSYS",
  ]

  /// The C name (`SIGTERM`), or `signal N` for numbers without one.
  public var description: String { Signal.names[rawValue] ?? "signal \(rawValue)" }
}

/// Sends a signal through a pidfd, which cannot hit a recycled pid.
///
/// - Throws: ``SystemError`` (`ESRCH` once the process has exited, even before it is reaped).
public func sendSignal(pidfd: FileDescriptor, _ signal: Signal) throws(SystemError) {
  try systemCall("pidfd_send_signal \(signal) to pidfd \(pidfd.rawValue)") {
    jetsam_pidfd_send_signal(pidfd.rawValue, signal.rawValue)
  }
}

/// Opens a pidfd for a process that jetsam did not spawn itself (e.g. one adopted after a daemon restart).
///
/// - Returns: an `O_CLOEXEC` pidfd the caller owns.
/// - Throws: ``SystemError`` (`ESRCH` when no such process exists).
public func openPidfd(pid: Int32) throws(SystemError) -> FileDescriptor {
  FileDescriptor(rawValue: try systemCall("pidfd_open \(pid)") { jetsam_pidfd_open(pid, 0) })
}

/// Frees a killed process's memory now, on the caller's time, instead of waiting for its exit path
/// (`process_mrelease`, Linux 5.15+).
///
/// Call it right after sending `SIGKILL`. It only works on a process that is already dying.
///
/// - Returns: `true` when the kernel reaped the memory; `false` when there was nothing to do: the kernel lacks the
///   call (`ENOSYS`), the process is not dying (`EINVAL`), or its memory is already gone (`ESRCH`).
/// - Throws: ``SystemError`` for anything else (a bad descriptor).
public func releaseMemory(pidfd: FileDescriptor) throws(SystemError) -> Bool {
  do {
    try systemCall("process_mrelease pidfd \(pidfd.rawValue)") { jetsam_process_mrelease(pidfd.rawValue) }
    return true
  } catch {
    switch error.code {
    case ENOSYS, EINVAL, ESRCH: return false
    default: throw error
    }
  }
}

/// Reaps a child if it has ended (`waitid(P_PIDFD, WEXITED | WNOHANG)`); a child still running is left alone.
///
/// - Returns: how it ended, or `nil` while it is still running.
/// - Throws: ``SystemError`` (`ECHILD` when it is not our child or was already reaped).
public func reapExit(pidfd: FileDescriptor) throws(SystemError) -> ProcessEnd? {
  // Zero-initialised: when WNOHANG finds nothing the kernel leaves si_pid at 0, and that is how we can tell.
  var info = siginfo_t()
  try systemCall("waitid pidfd \(pidfd.rawValue)") {
    jetsam_waitid_pidfd(pidfd.rawValue, &info, Int32(JETSAM_WEXITED) | Int32(JETSAM_WNOHANG))
  }
  if jetsam_siginfo_pid(&info) == 0 { return nil }
  let status = jetsam_siginfo_status(&info)
  switch jetsam_siginfo_code(&info) {
  case Int32(JETSAM_CLD_EXITED): return .exited(code: status)
  case Int32(JETSAM_CLD_KILLED): return .signaled(signal: status, dumpedCore: false)
  case Int32(JETSAM_CLD_DUMPED): return .signaled(signal: status, dumpedCore: true)
  default:
    // WEXITED alone never reports stops or continues.
    return nil
  }
}

/// The one-letter scheduler state from `/proc/PID/stat` (`R`, `S`, `D`, `T` stopped, `t` traced, `Z` zombie, ...).
///
/// - Returns: the state, or `nil` when the process does not exist (or the file is unreadable).
public func processState(pid: Int32) -> Character? {
  guard let text = try? readTextFile("/proc/\(pid)/stat") else { return nil }
  return parseProcessState(stat: text)
}

/// Extracts the state from a `/proc/PID/stat` line: `pid (comm) S ...`.
///
/// `comm` is whatever the program named itself (up to 15 bytes) and may contain spaces and `)`, so the state is
/// the first field after the *last* `)`.
func parseProcessState(stat text: String) -> Character? {
  guard let close = text.lastIndex(of: ")") else { return nil }
  return text[text.index(after: close)...].first { $0 != " " }
}

/// Sets a process's `oom_score_adj` (-1000 never OOM-killed ... 1000 killed first).
///
/// - Throws: ``SystemError`` (`EACCES` when lowering it without `CAP_SYS_RESOURCE`, `ENOENT` when it is gone).
public func setOOMScoreAdj(pid: Int32, _ value: Int32) throws(SystemError) {
  try writeTextFile("/proc/\(pid)/oom_score_adj", "\(value)")
}

/// Reads a process's `oom_score_adj`.
///
/// - Throws: ``SystemError`` when the process is gone, or `EINVAL` if the file does not hold a number.
public func oomScoreAdj(pid: Int32) throws(SystemError) -> Int32 {
  let path = "/proc/\(pid)/oom_score_adj"
  let text = try readTextFile(path)
  guard let value = Int32(text.trimmingWhitespace()) else { throw SystemError(code: EINVAL, "parse \(path)") }
  return value
}

extension String {
  fileprivate func trimmingWhitespace() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return self[first...last]
  }
}
