/// What a diagnostic is taken for (MetricKit's diagnostic kinds), with what the policy knows of it. The shell takes
/// the call stacks and keeps the diagnostic.
public enum DiagnosticRequest: Sendable, Equatable {
  /// A lifecycle event's handler hung past its watchdog deadline: the stacks are taken before the SIGKILL that
  /// follows (MetricKit's hang diagnostic; iOS takes it for 0x8badf00d).
  case hang(event: AppEventKind, seconds: Double)
  /// The app went over its CPU budget: a few stack samples while it burns (MetricKit's CPU exception diagnostic).
  case cpuException(CPUUsageReport)
  /// One of the app's processes got a fatal signal and waits in jetsam's crash handler: its stacks now, then the
  /// crash goes on (MetricKit's crash diagnostic).
  case crash(CrashReport)
}

/// What jetsam's crash handler in an app reports of a fatal signal.
public struct CrashReport: Sendable, Equatable, Codable {
  /// The process and thread that got it (the process may be a child of the app's main process).
  public var pid: Int32
  public var tid: Int32
  public var signal: Int32
  /// `si_code`: how it came about (e.g. 1, SEGV_MAPERR; negative when sent by a process).
  public var code: Int32
  /// The faulting address (`si_addr`), for faults.
  public var address: UInt64

  public init(pid: Int32, tid: Int32, signal: Int32, code: Int32, address: UInt64) {
    self.pid = pid
    self.tid = tid
    self.signal = signal
    self.code = code
    self.address = address
  }
}
