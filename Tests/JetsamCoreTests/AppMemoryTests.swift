import JetsamCore
import JetsamValues
import Testing

/// What the policy remembers of an app across its exits: the last record (a launch's reason), its state summary
/// and digests (the restoration verdict), and a kill's instant and memory.
@Suite("What the policy remembers")
struct AppMemoryTests {
  static func record(_ app: String, launch: Int, reason: ExitReason = .memoryPressure) -> ExitRecord {
    var record = ExitRecord(
      time: "2026-11-30T10:00:00Z", app: app, pid: 9, launch: launch,
      cause: ExitCause(reason: reason, terminationReason: "JETSAM memory-pressure", signal: 9),
      lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 5, stateSeconds: 3),
      pressure: ExitPressure(level: .urgent, availableBytes: 100))
    record.savedState.summary = "draft 3"
    record.savedState.digest = "abc"
    return record
  }

  @Test("a recorded exit from an earlier run is the next launch's reason and sets the launch count")
  func launchAfterRecordedExit() throws {
    var policy = JetsamPolicy()
    policy.observe(.exitRecorded(Self.record("notes", launch: 4)))
    _ = try policy.handle(.configure(app: "notes", bandFloor: nil, launchCount: 0))
    let actions = try policy.handle(.launch(app: "notes", foreground: true, at: t(0)))
    let expected = PreviousExit(
      reason: .memoryPressure, state: .suspended, time: "2026-11-30T10:00:00Z", summary: "draft 3")
    #expect(
      actions.last == .spawn(app: "notes", launch: 5, previousExit: expected, spec: LaunchSpec(command: ["notes"])))
    let spawned = policy.observe(.spawned(app: "notes", pid: 10, at: t(0)))
    let launched = spawned.events.first
    #expect(launched?.kind == .didFinishLaunching && launched?.previousExit == expected)
  }

  @Test("a fresh app launches fresh; after its own exit it launches afterExit")
  func ownExit() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    #expect(policy.lastExit(of: "a") == nil)
    let record = try #require(policy.exits("a", .exited(code: 3), at: t(1)).records.first)
    #expect(policy.lastExit(of: "a") == record)
    let relaunch = try policy.handle(.launch(app: "a", foreground: false, at: t(2)))
    guard case .spawn("a", 2, let previous?, _)? = relaunch.last else {
      Issue.record("expected a spawn with the previous exit: \(relaunch)")
      return
    }
    #expect(previous.reason == .abnormal)
  }

  @Test("summary and digests: kept in the exit record, the restoration verdict in the status")
  func restoration() throws {
    var policy = JetsamPolicy()
    policy.observe(.exitRecorded(Self.record("a", launch: 1)))
    try policy.start("a", pid: 10, at: t(0))
    #expect(policy.app(named: "a")?.restoration == .pending)
    let reply = policy.observe(
      .appMessage(
        app: "a", pid: 10, message: .stateDigest(phase: .restored, value: "abd", validFor: nil, requestID: 3), at: t(1))
    )
    #expect(
      reply == [
        .reply(app: "a", pid: 10, requestID: 3, .done),
        .restorationJudged(app: "a", launch: 2, verdict: .mismatch, savedDigest: "abc", restoredDigest: "abd"),
      ])
    #expect(policy.app(named: "a")?.restoration == .mismatch)
    policy.reportDigest("a", .restored, "abc", at: t(1))
    #expect(policy.app(named: "a")?.restoration == .match)
    policy.reportDigest("a", .saved, "def", at: t(2))
    policy.observe(.appMessage(app: "a", pid: 10, message: .stateSummary("draft 4", requestID: nil), at: t(2)))
    let record = try #require(policy.exits("a", .exited(code: 0), at: t(3)).records.first)
    #expect(record.savedState.summary == "draft 4" && record.savedState.digest == "def")
  }

  @Test("the saved digest carries over a launch that saves nothing new, so the next relaunch still gets a verdict")
  func digestCarriesOver() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    policy.reportDigest("a", .saved, "s1", at: t(1))
    #expect(
      try #require(policy.exits("a", .signaled(signal: 9, dumpedCore: false), at: t(2)).records.first)
        .savedState.digest == "s1")
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(3)))
    policy.observe(.spawned(app: "a", pid: 11, at: t(3)))
    policy.reportDigest("a", .restored, "s1", at: t(4))
    #expect(policy.app(named: "a")?.restoration == .match)
    // Killed again without saving anything new: what it left is still s1.
    let second = try #require(policy.exits("a", .signaled(signal: 9, dumpedCore: false), at: t(5)).records.first)
    #expect(second.savedState.digest == "s1")
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(6)))
    policy.observe(.spawned(app: "a", pid: 12, at: t(6)))
    #expect(policy.app(named: "a")?.restoration == .pending, "a verdict is owed: the app left s1")
  }

  /// An app that saved `saved` (if any), ended as `end`, and was launched again at t(10) as pid 11.
  static func relaunched(saved: String?, end: ProcessEnd) throws -> JetsamPolicy {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    if let saved {
      policy.reportDigest("a", .saved, saved, at: t(1))
    }
    policy.exits("a", end, at: t(2))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(10)))
    policy.observe(.spawned(app: "a", pid: 11, at: t(10)))
    return policy
  }

  @Test("lost: after a kill that left a digest, nothing restored is reported within the launch deadline")
  func lost() throws {
    var policy = try Self.relaunched(saved: "s1", end: .signaled(signal: 9, dumpedCore: false))
    #expect(policy.app(named: "a")?.restoration == .pending)
    #expect(policy.nextDeadline == t(30), "didFinishLaunching's deadline (20 s) from the spawn")
    #expect(
      policy.observe(.tick(at: t(30))).contains(
        .restorationJudged(app: "a", launch: 2, verdict: .lost, savedDigest: "s1", restoredDigest: nil)))
    #expect(policy.app(named: "a")?.restoration == .lost)
    // A late report still says what was restored.
    policy.reportDigest("a", .restored, "s1", at: t(31))
    #expect(policy.app(named: "a")?.restoration == .match)
    let record = try #require(policy.exits("a", .exited(code: 0), at: t(40)).records.first)
    #expect(
      record.savedState.restoration == .match && record.savedState.restoredDigest == "s1",
      "the verdict is kept in the launch's record")
  }

  @Test("a restore still owed keeps its deadline across a daemon restart: the successor judges it lost in time")
  func lostAcrossRestart() throws {
    let policy = try Self.relaunched(saved: "s1", end: .signaled(signal: 9, dumpedCore: false))
    let status = try #require(policy.app(named: "a"))
    #expect(status.restorationDeadline == t(30))
    var adopted = AppStatus(
      name: "a", state: status.state, bandFloor: nil, pid: 11, launch: status.launch,
      stateEnteredAt: status.stateEnteredAt, bandEnteredAt: status.bandEnteredAt, spawnedAt: t(10))
    adopted.previousDigest = status.previousDigest
    adopted.restorationDeadline = status.restorationDeadline
    var successor = JetsamPolicy()
    _ = try successor.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    successor.observe(.adopt(app: adopted, at: t(15)))
    #expect(successor.nextDeadline == t(30))
    successor.observe(.tick(at: t(30)))
    #expect(successor.app(named: "a")?.restoration == .lost)
    // Once lost, it stays lost through another restart.
    let lostStatus = try #require(successor.app(named: "a"))
    adopted.restorationDeadline = lostStatus.restorationDeadline
    adopted.restorationLost = lostStatus.restorationLost
    var third = JetsamPolicy()
    third.observe(.adopt(app: adopted, at: t(31)))
    #expect(third.app(named: "a")?.restoration == .lost)
  }

  @Test("after a quit (exit 0) a fresh start is right: no restore is owed, so nothing is lost")
  func noLossAfterQuit() throws {
    var policy = try Self.relaunched(saved: "s1", end: .exited(code: 0))
    policy.observe(.tick(at: t(60)))
    #expect(policy.app(named: "a")?.restoration == .pending)
  }

  @Test("unsaved: a relaunch restored something, but the app never reported what it left")
  func unsaved() throws {
    var policy = try Self.relaunched(saved: nil, end: .signaled(signal: 9, dumpedCore: false))
    #expect(policy.app(named: "a")?.restoration == nil, "nothing to judge yet")
    let judged = policy.reportDigest("a", .restored, "s0", at: t(11))
    #expect(
      judged == [.restorationJudged(app: "a", launch: 2, verdict: .unsaved, savedDigest: nil, restoredDigest: "s0")])
    #expect(policy.app(named: "a")?.restoration == .unsaved)
  }

  @Test("a summary over 128 bytes is refused with an error, and the old one stays")
  func longSummary() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    policy.observe(.appMessage(app: "a", pid: 10, message: .stateSummary("short", requestID: nil), at: t(0)))
    let refused = policy.observe(
      .appMessage(app: "a", pid: 10, message: .stateSummary(String(repeating: "x", count: 129), requestID: 4), at: t(1))
    )
    guard case .appError("a", 10, 4, .tooLarge, _)? = refused.first else {
      Issue.record("expected tooLarge: \(refused)")
      return
    }
    #expect(policy.app(named: "a")?.summary == "short")
  }

  @Test("killSignalled gives the record its SIGKILL instant and memory, and the snapshot each app's memory")
  func killFigures() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("victim", pid: 10, at: t(0))
    try policy.start("camera", pid: 11, at: t(1), foreground: true)
    let kill = policy.sample(Available.urgent, at: t(2))
    #expect(kill.killed == ["victim"])
    policy.observe(
      .killSignalled(app: "victim", pid: 10, at: t(2, ms: 1), memory: ["victim": 300, "camera": 500]))
    let record = try #require(policy.exits("victim", sigkill, at: t(2, ms: 40)).records.first)
    #expect(record.cause.killSignalledNanoseconds == t(2, ms: 1).nanoseconds)
    #expect(record.usage.memoryBytes == 300)
    #expect(record.pressure.snapshot?.map(\.memoryBytes) == [300, 500])
  }

  @Test("an adopted app's observed processes decide whether it is suspended")
  func adoptedState() throws {
    var policy = JetsamPolicy()
    var saved = AppStatus(
      name: "a", state: .background, bandFloor: nil, pid: 10, launch: 2,
      stateEnteredAt: t(0), bandEnteredAt: t(0), spawnedAt: t(0))
    saved.observedStopped = true
    policy.observe(.adopt(app: saved, at: t(5)))
    #expect(policy.app(named: "a")?.state == .suspended)
    #expect(policy.app(named: "a")?.bandEnteredAt == t(5))
    saved.name = "b"
    saved.state = .suspended
    saved.observedStopped = false
    policy.observe(.adopt(app: saved, at: t(5)))
    #expect(policy.app(named: "b")?.state == .background)
  }

  @Test("oom_score_adj follows the band, never below the floor")
  func oomScores() {
    let policy = JetsamPolicy(config: PolicyConfig(thresholds: testThresholds, oomScoreFloor: 0))
    #expect(policy.oomScoreAdj(for: .idle) == 900)
    #expect(policy.oomScoreAdj(for: .background) == 660)
    #expect(policy.oomScoreAdj(for: .foreground) == 100)
    #expect(policy.oomScoreAdj(for: .audio) == 0)
  }
}
