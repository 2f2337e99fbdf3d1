/// An exit record on disk (and on the control socket) is one flat JSON object, as it was before its facts were
/// grouped: each group reads and writes its own keys of the one object, so that the log's lines, the state file's
/// pending records and every client's JSON are unchanged, and every record ever written reads back. What was
/// required then is required now (a torn or foreign line is still refused); the rest may be absent.
extension ExitRecord: Codable {
  /// Every key of a record, by group.
  enum CodingKeys: String, CodingKey {
    case time, app, pid, launch
    case reason, terminationReason, endedBy, signal, exitCode, killSignalledNanoseconds
    case state, aliveSeconds, stateSeconds, backgroundSecondsBeforeSuspension, suspendIncomplete
    case memoryBytes, peakMemoryBytes, memoryLimitBytes, cpuSeconds
    case pressureLevel, deviceAvailableBytes, snapshot
    case watchdogEvent, watchdogSeconds, openBackgroundTasks, cpuUsage, lockedFiles, diagnostics
    case stateSummary, stateDigest, restoration, restoredDigest, resumption, resumedDigest, resumedStateAgeSeconds,
      resumedStateValidForSeconds
    case launchMetrics, commands
  }

  /// Reads a record from the flat object of the exit log, as every version of jetsam wrote it.
  public init(from decoder: any Decoder) throws {
    let record = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      time: try record.decode(String.self, forKey: .time),
      app: try record.decode(String.self, forKey: .app),
      pid: try record.decode(Int32.self, forKey: .pid),
      launch: try record.decode(Int.self, forKey: .launch),
      cause: try ExitCause(from: record),
      lifecycle: try ExitLifecycle(from: record),
      usage: try ExitResourceUsage(from: record),
      pressure: try ExitPressure(from: record),
      evidence: try ExitEvidence(from: record),
      savedState: try ExitSavedState(from: record),
      launchMetrics: try record.decodeIfPresent(LaunchMetrics.self, forKey: .launchMetrics),
      commands: try record.decodeIfPresent([CommandRunRecord].self, forKey: .commands))
  }

  /// Writes the record as the flat object of the exit log.
  public func encode(to encoder: any Encoder) throws {
    var record = encoder.container(keyedBy: CodingKeys.self)
    try record.encode(time, forKey: .time)
    try record.encode(app, forKey: .app)
    try record.encode(pid, forKey: .pid)
    try record.encode(launch, forKey: .launch)
    try cause.encode(to: &record)
    try lifecycle.encode(to: &record)
    try usage.encode(to: &record)
    try pressure.encode(to: &record)
    try evidence.encode(to: &record)
    try savedState.encode(to: &record)
    try record.encodeIfPresent(launchMetrics, forKey: .launchMetrics)
    try record.encodeIfPresent(commands, forKey: .commands)
  }
}
