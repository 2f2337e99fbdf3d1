import JetsamCore
import Testing

@Suite struct RequestedKillTests {
  @Test func aUserKillIsRecordedWithTheReasonAskedFor() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    let kill = try policy.handle(.kill(app: "a", reason: .appWatchdog, at: t(2)))
    let decision = KillInFlight(kill: .user(.appWatchdog), level: .normal, availableBytes: 0)
    #expect(kill == [.kill(app: "a", pid: 10, reason: .appWatchdog, decision: decision)])
    let record = try #require(policy.exits("a", sigkill, at: t(3)).records.first)
    #expect(record.cause.reason == .appWatchdog)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0x8badf00d")
    #expect(record.pressure.snapshot == nil)
  }

  @Test func theFirstKillRequestedDecidesTheRecord() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    #expect(policy.sample(Available.urgent, at: t(2)).killed == ["a"])
    // The user's kill is passed on, but jetsam's SIGKILL was first.
    let kill = try policy.handle(.kill(app: "a", reason: .cpuResourceLimit, at: t(3)))
    guard case .kill("a", 10, .cpuResourceLimit, let decision) = kill.first, kill.count == 1 else {
      Issue.record("no kill passed on: \(kill)")
      return
    }
    #expect(decision.kill == .jetsam, "the decision on its way is jetsam's, snapshot and all")
    #expect(decision.snapshot?.map(\.name) == ["a"])
    let record = try #require(policy.exits("a", sigkill, at: t(4)).records.first)
    #expect(record.cause.reason == .memoryPressure)
  }

  @Test func aHonouredTerminateIsANormalExit() throws {
    var policy = JetsamPolicy(terminateGrace: .seconds(5))
    try policy.start("a", pid: 10, at: t(1))
    #expect(try policy.handle(.terminate(app: "a", at: t(2))) == [.terminate(app: "a", pid: 10)])
    #expect(policy.nextDeadline == t(7))
    let record = try #require(policy.exits("a", sigterm, at: t(3)).records.first)
    #expect(record.cause.reason == .normalAppExit)
    #expect(record.cause.terminationReason == "JETSAM terminate")
    #expect(policy.nextDeadline == nil)
  }

  @Test func anIgnoredTerminateEscalatesToSIGKILLAfterTheGrace() throws {
    var policy = JetsamPolicy(terminateGrace: .seconds(5))
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.terminate(app: "a", at: t(2)))
    // Asking again does not extend the grace.
    _ = try policy.handle(.terminate(app: "a", at: t(4)))
    #expect(policy.nextDeadline == t(7))
    #expect(policy.observe(.tick(at: t(6))) == [])
    let decision = KillInFlight(kill: .terminateEscalation, level: .normal, availableBytes: 0)
    #expect(policy.observe(.tick(at: t(7))) == [.kill(app: "a", pid: 10, reason: .abnormal, decision: decision)])
    #expect(policy.nextDeadline == nil)
    let record = try #require(policy.exits("a", sigkill, at: t(8)).records.first)
    #expect(record.cause.reason == .abnormal)
    #expect(record.cause.terminationReason == "JETSAM terminate-timeout")
  }

  @Test func noEscalationForAnAppAlreadyBeingKilled() throws {
    var policy = JetsamPolicy(terminateGrace: .seconds(5))
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.terminate(app: "a", at: t(2)))
    _ = try policy.handle(.kill(app: "a", reason: .abnormal, at: t(3)))
    #expect(policy.observe(.tick(at: t(7))) == [])
    #expect(policy.nextDeadline == nil)
  }

  @Test func aKillOrTerminateBeforeTheProcessRunsIsRefused() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(1)))
    #expect(throws: PolicyError.illegalTransition(app: "a", from: .launching, request: "kill")) {
      try policy.handle(.kill(app: "a", reason: .abnormal, at: t(2)))
    }
    #expect(throws: PolicyError.illegalTransition(app: "a", from: .launching, request: "terminate")) {
      try policy.handle(.terminate(app: "a", at: t(2)))
    }
  }
}
