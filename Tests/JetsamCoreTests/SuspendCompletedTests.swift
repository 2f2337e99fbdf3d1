import JetsamCore
import Testing

@Suite struct SuspendCompletedTests {
  @Test func suspendedTimeCountsFromWhenTheLastProcessStopped() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.suspend(app: "a", at: t(5)))
    // Provisional until the stop is confirmed.
    #expect(policy.app(named: "a")?.bandEnteredAt == t(5))
    #expect(policy.observe(.suspendCompleted(app: "a", at: t(6))) == [])
    let app = try #require(policy.app(named: "a"))
    #expect(app.bandEnteredAt == t(6))
    #expect(app.stateEnteredAt == t(5))
  }

  @Test func aLateSuspendCompletedAfterResumeIsIgnored() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.suspend(app: "a", at: t(5)))
    _ = try policy.handle(.resume(app: "a", at: t(6)))
    policy.observe(.suspendCompleted(app: "a", at: t(7)))
    #expect(policy.app(named: "a")?.bandEnteredAt == t(6))
  }

  @Test func anAudioAppsSuspensionRestartsItsBandClock() throws {
    var policy = JetsamPolicy()
    try policy.start("music", pid: 10, at: t(1), floor: .audio)
    _ = try policy.handle(.suspend(app: "music", at: t(5)))
    policy.observe(.suspendCompleted(app: "music", at: t(6)))
    let app = try #require(policy.app(named: "music"))
    #expect(app.band == .audio)
    #expect(app.bandEnteredAt == t(6))
  }

  @Test func theSuspendedAppThatStoppedFirstDiesFirst() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    try policy.start("b", pid: 11, at: t(1))
    // a was asked first but b stopped first.
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    _ = try policy.handle(.suspend(app: "b", at: t(3)))
    policy.observe(.suspendCompleted(app: "b", at: t(4)))
    policy.observe(.suspendCompleted(app: "a", at: t(5)))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["b"])
  }
}

@Suite("Continued while suspended")
struct ContinuedWhileSuspendedTests {
  @Test("a suspended app continued by another process is stopped again, counted, and its suspended time restarts")
  func stopsAgain() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1), stoppedAt: t(1, ms: 1))
    let actions = policy.observe(.continuedWhileSuspended(app: "a", pid: 10, at: t(5)))
    #expect(actions.contains(.suspend(app: "a", pid: 10)))
    let status = try #require(policy.app(named: "a"))
    #expect(status.state == .suspended && status.continuedByOthers == 1)
    #expect(status.bandEnteredAt == t(5), "it ran: its suspended time starts over")
    #expect(policy.isStopAwaited("a"))
    // An old pid, or an app not suspended, is ignored.
    #expect(policy.observe(.continuedWhileSuspended(app: "a", pid: 99, at: t(6))).isEmpty)
    _ = try policy.handle(.resume(app: "a", at: t(7)))
    #expect(policy.observe(.continuedWhileSuspended(app: "a", pid: 10, at: t(8))).isEmpty)
    #expect(policy.app(named: "a")?.continuedByOthers == 1)
  }

  @Test("a stop that does not land in time after a continuation counts as incomplete, as any suspension")
  func timesOut() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1), stoppedAt: t(1, ms: 1))
    _ = policy.observe(.continuedWhileSuspended(app: "a", pid: 10, at: t(5)))
    let actions = policy.observe(.tick(at: t(7)))
    #expect(actions.contains(.suspendIncomplete(app: "a", pid: 10)))
  }
}
