import Glibc

/// One reading of `/proc/PID/stat`: the fields of it that jetsam uses (see proc_pid_stat(5)).
///
/// The second field, `comm`, is whatever the program named itself (up to 15 bytes) and may contain spaces and `)`:
/// it runs from the first `(` to the *last* `)`, and the numbered fields are counted from there. Numbered fields a
/// line does not have (an older kernel, a truncated read) are `nil`.
public struct ProcessStat: Sendable, Hashable {
  /// The process ID (field 1).
  public var processID: Int32
  /// The command name without its parentheses (field 2, `comm`).
  public var command: String
  /// The scheduler state (field 3): `R` running, `S` sleeping, `D` uninterruptible, `T` stopped, `t` traced,
  /// `Z` zombie, `X` dead.
  public var state: Character
  /// The parent's process ID (field 4).
  public var parentProcessID: Int32?
  /// The process group ID (field 5, `pgrp`).
  public var processGroupID: Int32?
  /// The session ID (field 6).
  public var sessionID: Int32?
  /// CPU time in user mode, in clock ticks (field 14, `utime`).
  public var userTicks: UInt64?
  /// CPU time in kernel mode, in clock ticks (field 15, `stime`).
  public var systemTicks: UInt64?
  /// When the process started, in clock ticks since boot (field 22, `starttime`). With the pid it names one
  /// process across pid reuse.
  public var startTime: UInt64?
  /// The exit status in `waitpid` format (field 52, `exit_code`, Linux 3.5+). The kernel fills it in for a
  /// zombie and shows it only to readers that may ptrace the process; others read 0.
  public var exitStatus: Int32?

  /// Parses one `/proc/PID/stat` line; `nil` when it has no pid, no `(comm)` or no state.
  public init?(parsing text: some StringProtocol) {
    let line = Substring(text)
    guard let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")"), open < close,
      let processID = Int32(line[..<open].filter { $0 != " " })
    else { return nil }
    // Field 3 comes first: fields[n - 3] is field n.
    let fields = line[line.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard let state = fields.first?.first else { return nil }
    func field<T: FixedWidthInteger>(_ number: Int) -> T? {
      number - 3 < fields.count ? T(fields[number - 3]) : nil
    }
    self.processID = processID
    command = String(line[line.index(after: open)..<close])
    self.state = state
    parentProcessID = field(4)
    processGroupID = field(5)
    sessionID = field(6)
    userTicks = field(14)
    systemTicks = field(15)
    startTime = field(22)
    exitStatus = field(52)
  }

  /// Reads `/proc/PID/stat`.
  ///
  /// - Throws: ``SystemError`` (`ENOENT` or `ESRCH` when the process is gone, `EINVAL` when the line does not
  ///   parse).
  public static func read(pid: Int32) throws(SystemError) -> ProcessStat {
    let path = "/proc/\(pid)/stat"
    guard let stat = ProcessStat(parsing: try readTextFile(path)) else {
      throw SystemError(code: EINVAL, "parse \(path)")
    }
    return stat
  }

  /// The start time of process `pid` in clock ticks since boot (``startTime``), `nil` when it is gone.
  ///
  /// Replaces the C shim's `jetsam_process_start_time` (which returns 0 for a process that is gone).
  public static func startTime(pid: Int32) -> UInt64? {
    (try? read(pid: pid))?.startTime
  }

  /// User plus kernel CPU time, in clock ticks.
  public var cpuTicks: UInt64? {
    guard let userTicks, let systemTicks else { return nil }
    return userTicks + systemTicks
  }

  /// Whether the process has ended and waits to be reaped (`Z`), or is on its way out (`X`).
  public var hasEnded: Bool { state == "Z" || state == "X" }

  /// Clock ticks per second, the unit of ``userTicks``, ``systemTicks`` and ``startTime``. The corresponding C
  /// call is `sysconf(_SC_CLK_TCK)`.
  public static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
}

/// The scheduler state of a process from `/proc/PID/stat` (`R`, `S`, `D`, `T` stopped, `t` traced, `Z` zombie, ...).
///
/// - Returns: the state, or `nil` when the process does not exist (or the file is unreadable).
public func processState(pid: Int32) -> Character? {
  (try? ProcessStat.read(pid: pid))?.state
}
