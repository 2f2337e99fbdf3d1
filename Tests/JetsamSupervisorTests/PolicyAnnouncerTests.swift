import JetsamCore
import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// What the policy decided and the records say, counted for the Prometheus exposition: durable exits by app, reason
/// and state, jetsam's own kills, watchdog kills by event, restoration verdicts, and the loop's kill timings.
@Suite("Policy announcer")
struct PolicyAnnouncerTests {
  let announcer = PolicyAnnouncer(log: Logger(threshold: .error), journal: Journal(enabled: false))

  init() {
    announcer.isConfigured = { $0 == "mail" }
  }

  static func record(
    _ app: String, _ reason: ExitReason, endedBy: ExitAgent? = nil, watchdogEvent: String? = nil
  ) -> ExitRecord {
    var record = AppSupervisorTests.record(app)
    record.cause.reason = reason
    record.lifecycle.state = .suspended
    record.cause.endedBy = endedBy
    record.evidence.watchdogEvent = watchdogEvent
    return record
  }

  @Test("each durable record is counted under its app, reason and state; jetsam's kills and watchdog kills apart")
  func countsRecords() {
    announcer.recorded(Self.record("mail", .memoryPressure, endedBy: .jetsam))
    announcer.recorded(Self.record("mail", .memoryPressure, endedBy: .jetsam))
    announcer.recorded(Self.record("mail", .memoryResourceLimit, endedBy: .memoryLimit))
    announcer.recorded(Self.record("notes", .appWatchdog, endedBy: .jetsam, watchdogEvent: "didEnterBackground"))
    announcer.recorded(Self.record("notes", .abnormal, endedBy: .exit))
    let counters = announcer.counters
    #expect(counters.exits[.init(app: "mail", reason: .memoryPressure, state: .suspended)] == 2)
    #expect(counters.exits[.init(app: "notes", reason: .abnormal, state: .suspended)] == 1)
    #expect(counters.jetsamKills == [.memoryPressure: 2, .memoryResourceLimit: 1, .appWatchdog: 1])
    #expect(counters.watchdogKills == ["didEnterBackground": 1])
  }

  @Test("ad-hoc apps past the limit are counted as other; a configured app always under its own name")
  func boundedLabels() {
    for index in 0..<ExitCounters.maxAdHocApps {
      announcer.recorded(Self.record("adhoc\(index)", .normalAppExit))
    }
    announcer.recorded(Self.record("one-too-many", .normalAppExit))
    announcer.recorded(Self.record("mail", .normalAppExit))
    announcer.restorationJudged(app: "late", launch: 2, verdict: .match, savedDigest: "s", restoredDigest: "s")
    let counters = announcer.counters
    #expect(counters.exits[.init(app: ExitCounters.overflowApp, reason: .normalAppExit, state: .suspended)] == 1)
    #expect(counters.exits[.init(app: "one-too-many", reason: .normalAppExit, state: .suspended)] == nil)
    #expect(counters.exits[.init(app: "mail", reason: .normalAppExit, state: .suspended)] == 1)
    #expect(counters.verdicts == [.init(app: ExitCounters.overflowApp, verdict: "match"): 1])
  }

  @Test("restoration verdicts are counted per app and verdict")
  func countsVerdicts() {
    announcer.restorationJudged(app: "mail", launch: 2, verdict: .match, savedDigest: "a", restoredDigest: "a")
    announcer.restorationJudged(app: "mail", launch: 3, verdict: .mismatch, savedDigest: "a", restoredDigest: "b")
    announcer.restorationJudged(app: "mail", launch: 4, verdict: .match, savedDigest: "c", restoredDigest: "c")
    #expect(
      announcer.counters.verdicts == [
        .init(app: "mail", verdict: "match"): 2, .init(app: "mail", verdict: "mismatch"): 1,
      ])
  }

  @Test("the loop's events and actions reach the kill timings")
  func followsTheLoop() {
    let sampled = Instant.seconds(10)
    announcer.handled(.memorySampled(available: 1, at: sampled))
    announcer.performed(.kill(app: "mail", pid: 7, reason: .memoryPressure, decision: .jetsamAtCritical([])))
    announcer.handled(.killSignalled(app: "mail", pid: 7, at: sampled.advanced(by: .milliseconds(1)), memory: [:]))
    #expect(announcer.killTimings.killLatency.count == 1)
  }
}
