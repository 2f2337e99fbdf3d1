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
