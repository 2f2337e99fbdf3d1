import Foundation
import JetsamCore
import Testing

/// An exit record's facts are grouped by concern, but on disk (the log, the state file's pending records, every
/// client's JSON) it stays the one flat object jetsamd always wrote: these compare the encoding with the text the
/// flat record wrote, byte for byte, and read lines as earlier versions wrote them.
@Suite("Exit record encoding")
struct ExitRecordCodingTests {
  /// The encoding of the log and the control socket (``JSONEncoder/stable``'s settings).
  static func encoded(_ record: ExitRecord) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(record), as: UTF8.self)
  }

  static func decoded(_ line: String) throws -> ExitRecord {
    try JSONDecoder().decode(ExitRecord.self, from: Data(line.utf8))
  }

  /// Every field set, in every group, with text that needs escaping.
  static let full: ExitRecord = {
    var record = ExitRecord(
      time: "2026-12-06T10:11:12.345Z", app: #"mail/ü "q""#, pid: 4242, launch: 7,
      cause: ExitCause(
        reason: .suspendedWithLockedFile, terminationReason: "JETSAM locked-file", endedBy: .jetsam, signal: 9,
        exitCode: 3, killSignalledNanoseconds: 9_876_543_210),
      lifecycle: ExitLifecycle(
        state: .suspended, aliveSeconds: 86_400.5, stateSeconds: 0.001, backgroundSecondsBeforeSuspension: 30,
        suspendIncomplete: true),
      usage: ExitResourceUsage(
        memoryBytes: 123_456_789, peakMemoryBytes: 234_567_890, memoryLimitBytes: 268_435_456, cpuSeconds: 1.25),
      pressure: ExitPressure(
        level: .critical, availableBytes: 12_345,
        snapshot: [
          SnapshotEntry(
            name: #"mail/ü "q""#, pid: 4242, band: .idle, state: .suspended, memoryBytes: 5, secondsInBand: 2.5),
          SnapshotEntry(name: "maps", pid: 11, band: .foreground, state: .foreground, secondsInBand: 0),
        ]),
      evidence: ExitEvidence(
        watchdogEvent: "didEnterBackground", watchdogSeconds: 10.5, openBackgroundTasks: ["up/load", "sync"],
        cpuUsage: CPUUsageReport(
          state: .background, cpuSeconds: 48, windowSeconds: 52, sampledSeconds: 52, limitPercent: 80, fatal: true),
        lockedFiles: [HeldLock(path: "/var/db/x.sqlite", type: "posix", access: "write", pid: 4243)],
        diagnostics: ["hang-1", "cpu-2"]),
      savedState: ExitSavedState(summary: "items=3\ttab \\ é", digest: "s2"))
    record.savedState.restoration = .mismatch
    record.savedState.restoredDigest = "r3"
    record.savedState.resumption = .stale
    record.savedState.resumedDigest = "s2"
    record.savedState.resumedStateAgeSeconds = 11.25
    record.savedState.resumedStateValidForSeconds = 10
    var metrics = LaunchMetrics(afterExit: .memoryPressure)
    metrics.foregroundSeconds = 3.5
    metrics.hangTimes.count(seconds: 0.4)
    record.launchMetrics = metrics
    record.commands = [
      CommandRunRecord(run: "ready", command: ["/bin/ready", "--x"], exitCode: 0, seconds: 0.5, attempts: 3),
      CommandRunRecord(run: "digest saved", command: ["d"], signal: 9, timedOut: true, seconds: 2, output: "abc\n"),
    ]
    return record
  }()

  @Test("a record with every field set writes the flat keys the ungrouped record wrote, and reads back")
  func fullRecord() throws {
    // Written by the record before its fields were grouped.
    let flat = #"""
      {"aliveSeconds":86400.5,"app":"mail/ü \"q\"","backgroundSecondsBeforeSuspension":30,\#
      "commands":[{"attempts":3,"command":["/bin/ready","--x"],"exitCode":0,"run":"ready",\#
      "seconds":0.5},{"command":["d"],"output":"abc\n","run":"digest saved","seconds":2,"signal":9,\#
      "timedOut":true}],"cpuSeconds":1.25,"cpuUsage":{"cpuSeconds":48,"fatal":true,"limitPercent":80,\#
      "sampledSeconds":52,"state":"background",\#
      "summary":"48 seconds cpu time over 52 seconds (92% cpu average), exceeding limit of 80% cpu over 52 seconds",\#
      "windowSeconds":52},"deviceAvailableBytes":12345,"diagnostics":["hang-1","cpu-2"],"endedBy":"jetsam",\#
      "exitCode":3,"killSignalledNanoseconds":9876543210,"launch":7,\#
      "launchMetrics":{"afterExit":"memoryPressure","backgroundAudioSeconds":0,"backgroundSeconds":0,\#
      "foregroundSeconds":3.5,"hangTimes":[{"count":1,"endMilliseconds":500,"startMilliseconds":250}],\#
      "resumeTimes":[],"signposts":{},"suspendedMemory":{"averageBytes":0,"samples":0,"seconds":0,\#
      "weightedSquares":0}},"lockedFiles":[{"access":"write","path":"/var/db/x.sqlite","pid":4243,\#
      "type":"posix"}],"memoryBytes":123456789,"memoryLimitBytes":268435456,"openBackgroundTasks":["up/load",\#
      "sync"],"peakMemoryBytes":234567890,"pid":4242,"pressureLevel":"critical",\#
      "reason":"suspendedWithLockedFile","restoration":"mismatch","restoredDigest":"r3","resumedDigest":"s2",\#
      "resumedStateAgeSeconds":11.25,"resumedStateValidForSeconds":10,"resumption":"stale","signal":9,\#
      "snapshot":[{"band":"idle","memoryBytes":5,"name":"mail/ü \"q\"","pid":4242,"secondsInBand":2.5,\#
      "state":"suspended"},{"band":"foreground","memoryBytes":0,"name":"maps","pid":11,"secondsInBand":0,\#
      "state":"foreground"}],"state":"suspended","stateDigest":"s2","stateSeconds":0.001,\#
      "stateSummary":"items=3\ttab \\ é","suspendIncomplete":true,"terminationReason":"JETSAM locked-file",\#
      "time":"2026-12-06T10:11:12.345Z","watchdogEvent":"didEnterBackground","watchdogSeconds":10.5}
      """#
    #expect(try Self.encoded(Self.full) == flat)
    #expect(try Self.decoded(flat) == Self.full)
  }

  @Test("a record with only what every record has leaves every optional key out")
  func minimalRecord() throws {
    let record = ExitRecord(
      app: "a", pid: 1, launch: 1, cause: ExitCause(reason: .normalAppExit, terminationReason: "EXIT 0", exitCode: 0),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 0))
    let flat = #"""
      {"aliveSeconds":1,"app":"a","cpuSeconds":0,"deviceAvailableBytes":0,"exitCode":0,"launch":1,\#
      "memoryBytes":0,"peakMemoryBytes":0,"pid":1,"pressureLevel":"normal","reason":"normalAppExit",\#
      "state":"background","stateSeconds":1,"terminationReason":"EXIT 0","time":""}
      """#
    #expect(try Self.encoded(record) == flat)
    #expect(try Self.decoded(flat) == record)
  }

  @Test(
    "lines as earlier versions wrote them read, and write back as the ungrouped record wrote them",
    arguments: [
      // Before `endedBy`, launch metrics, commands and the verdicts: only what every record had.
      (
        #"""
        {"time":"2025-01-01T00:00:00Z","app":"old","pid":5,"launch":2,"reason":"memoryPressure",\#
        "terminationReason":"JETSAM memory-pressure","state":"suspended","signal":9,"memoryBytes":100,\#
        "peakMemoryBytes":200,"cpuSeconds":0.5,"aliveSeconds":10,"stateSeconds":4,"pressureLevel":"urgent",\#
        "deviceAvailableBytes":1000}
        """#,
        #"""
        {"aliveSeconds":10,"app":"old","cpuSeconds":0.5,"deviceAvailableBytes":1000,"launch":2,\#
        "memoryBytes":100,"peakMemoryBytes":200,"pid":5,"pressureLevel":"urgent","reason":"memoryPressure",\#
        "signal":9,"state":"suspended","stateSeconds":4,"terminationReason":"JETSAM memory-pressure",\#
        "time":"2025-01-01T00:00:00Z"}
        """#
      ),
      // A lifecycle state's own name for the state, explicit nulls, and a key this version does not know.
      (
        #"""
        {"time":"2025-01-01T00:00:00Z","app":"older","pid":6,"launch":1,"reason":"abnormal",\#
        "terminationReason":"EXIT 3","state":"foregroundActive","exitCode":3,"memoryBytes":0,"peakMemoryBytes":0,\#
        "cpuSeconds":0,"aliveSeconds":1,"stateSeconds":1,"pressureLevel":"normal","deviceAvailableBytes":0,\#
        "watchdogEvent":null,"snapshot":null,"unknownKey":1}
        """#,
        #"""
        {"aliveSeconds":1,"app":"older","cpuSeconds":0,"deviceAvailableBytes":0,"exitCode":3,"launch":1,\#
        "memoryBytes":0,"peakMemoryBytes":0,"pid":6,"pressureLevel":"normal","reason":"abnormal",\#
        "state":"foreground","stateSeconds":1,"terminationReason":"EXIT 3","time":"2025-01-01T00:00:00Z"}
        """#
      ),
      // Keys in the order the ungrouped record declared them, a verdict and a watchdog kill's evidence.
      (
        #"""
        {"time":"","app":"x","pid":7,"launch":3,"reason":"appWatchdog","terminationReason":"JETSAM watchdog",\#
        "endedBy":"jetsam","state":"launching","signal":9,"memoryBytes":1,"peakMemoryBytes":2,\#
        "memoryLimitBytes":3,"cpuSeconds":4,"aliveSeconds":5,"stateSeconds":6,"pressureLevel":"warning",\#
        "deviceAvailableBytes":7,"watchdogEvent":"didEnterBackground","watchdogSeconds":8.5,"restoration":"match",\#
        "restoredDigest":"d","stateDigest":"d","stateSummary":"s"}
        """#,
        #"""
        {"aliveSeconds":5,"app":"x","cpuSeconds":4,"deviceAvailableBytes":7,"endedBy":"jetsam","launch":3,\#
        "memoryBytes":1,"memoryLimitBytes":3,"peakMemoryBytes":2,"pid":7,"pressureLevel":"warning",\#
        "reason":"appWatchdog","restoration":"match","restoredDigest":"d","signal":9,"state":"foreground",\#
        "stateDigest":"d","stateSeconds":6,"stateSummary":"s","terminationReason":"JETSAM watchdog","time":"",\#
        "watchdogEvent":"didEnterBackground","watchdogSeconds":8.5}
        """#
      ),
    ])
  func oldLines(line: String, rewritten: String) throws {
    let record = try Self.decoded(line)
    #expect(try Self.encoded(record) == rewritten)
    #expect(try Self.decoded(rewritten) == record)
  }

  @Test("an old line's facts land in their groups")
  func oldLineGroups() throws {
    let record = try Self.decoded(
      #"""
      {"time":"","app":"x","pid":7,"launch":3,"reason":"appWatchdog","terminationReason":"JETSAM watchdog",\#
      "endedBy":"jetsam","state":"foregroundInactive","signal":9,"memoryBytes":1,"peakMemoryBytes":2,\#
      "cpuSeconds":4,"aliveSeconds":5,"stateSeconds":6,"pressureLevel":"warning","deviceAvailableBytes":7,\#
      "watchdogEvent":"didEnterBackground","restoration":"match","stateDigest":"d","stateSummary":"s"}
      """#)
    #expect(
      record.cause
        == ExitCause(reason: .appWatchdog, terminationReason: "JETSAM watchdog", endedBy: .jetsam, signal: 9))
    #expect(record.lifecycle == ExitLifecycle(state: .foreground, aliveSeconds: 5, stateSeconds: 6))
    #expect(record.usage == ExitResourceUsage(memoryBytes: 1, peakMemoryBytes: 2, cpuSeconds: 4))
    #expect(record.pressure == ExitPressure(level: .warning, availableBytes: 7))
    #expect(record.evidence == ExitEvidence(watchdogEvent: "didEnterBackground"))
    #expect(record.savedState.summary == "s" && record.savedState.digest == "d")
    #expect(record.savedState.restoration == .match && record.savedState.hasVerdict)
    #expect(record.launchMetrics == nil && record.commands == nil)
  }

  @Test("what was refused before still is: a torn line, a line without a key every record had")
  func refused() {
    let missingPeak =
      #"""
      {"time":"","app":"x","pid":7,"launch":3,"reason":"abnormal","terminationReason":"X","state":"suspended",\#
      "memoryBytes":1,"cpuSeconds":4,"aliveSeconds":5,"stateSeconds":6,"pressureLevel":"warning",\#
      "deviceAvailableBytes":7}
      """#
    for line in [#"{"app":"half","pid":"#, missingPeak] {
      #expect(throws: DecodingError.self) { try Self.decoded(line) }
    }
  }
}
