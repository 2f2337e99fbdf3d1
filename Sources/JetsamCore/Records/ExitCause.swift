import JetsamValues

/// Why and how an app's process ended, as its exit record says it: MetricKit's reason, jetsam's namespaced code,
/// who ended it, what the kernel reported (the signal or the exit status), and when jetsamd's own SIGKILL went out.
public struct ExitCause: Hashable, Sendable {
  /// The MetricKit exit reason.
  public var reason: ExitReason
  /// Namespace and code, e.g. `JETSAM memory-pressure`, `SIGNAL 0xb`, `EXIT 3`.
  public var terminationReason: String
  /// Who ended the app: jetsam's policy, the kernel at its memory cap, a request, a signal jetsam did not send, its
  /// own exit (absent only in records written before jetsam kept it).
  public var endedBy: ExitAgent?
  /// The signal that ended the process, if one did.
  public var signal: Int32?
  /// The exit status, if the process exited.
  public var exitCode: Int32?
  /// For an app jetsamd killed: the CLOCK_MONOTONIC instant, in nanoseconds, at which its SIGKILL went out
  /// (`make bench` measures reaction times from it).
  public var killSignalledNanoseconds: Int64?

  /// The cause from its parts; who ended the app and the kill's instant start unknown unless given.
  public init(
    reason: ExitReason, terminationReason: String, endedBy: ExitAgent? = nil, signal: Int32? = nil,
    exitCode: Int32? = nil, killSignalledNanoseconds: Int64? = nil
  ) {
    self.reason = reason
    self.terminationReason = terminationReason
    self.endedBy = endedBy
    self.signal = signal
    self.exitCode = exitCode
    self.killSignalledNanoseconds = killSignalledNanoseconds
  }

  /// The cause of `end` as the policy classified it.
  public init(_ classification: ExitClassification, end: ProcessEnd) {
    self.init(
      reason: classification.reason, terminationReason: classification.terminationReason,
      endedBy: classification.endedBy, signal: end.signal, exitCode: end.exitCode)
  }
}

extension ExitCause {
  /// The cause as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      reason: try record.decode(ExitReason.self, forKey: .reason),
      terminationReason: try record.decode(String.self, forKey: .terminationReason),
      endedBy: try record.decodeIfPresent(ExitAgent.self, forKey: .endedBy),
      signal: try record.decodeIfPresent(Int32.self, forKey: .signal),
      exitCode: try record.decodeIfPresent(Int32.self, forKey: .exitCode),
      killSignalledNanoseconds: try record.decodeIfPresent(Int64.self, forKey: .killSignalledNanoseconds))
  }

  /// Writes the cause into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encode(reason, forKey: .reason)
    try record.encode(terminationReason, forKey: .terminationReason)
    try record.encodeIfPresent(endedBy, forKey: .endedBy)
    try record.encodeIfPresent(signal, forKey: .signal)
    try record.encodeIfPresent(exitCode, forKey: .exitCode)
    try record.encodeIfPresent(killSignalledNanoseconds, forKey: .killSignalledNanoseconds)
  }
}
