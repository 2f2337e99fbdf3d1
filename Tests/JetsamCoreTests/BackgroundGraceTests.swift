import JetsamCore
import Testing

@Suite struct BackgroundGraceTests {
  @Test func anAppLeftInTheBackgroundIsSuspendedWhenItsGraceRunsOut() throws {
    var policy = JetsamPolicy(grace: .seconds(10))
    try policy.start("a", pid: 10, at: t(1))
    #expect(policy.nextDeadline == t(11))
    #expect(policy.observe(.tick(at: t(10))) == [])
    let actions = policy.observe(.tick(at: t(11)))
    #expect(
      actions == [
        .stateChanged(app: "a", from: .background, to: .suspended, band: .idle), .suspend(app: "a", pid: 10),
        .sampleSuspendedMemory([AppProcessRef(app: "a", pid: 10)]),
      ])
    #expect(policy.nextDeadline == t(12), "the suspend timeout, until its processes are seen stopped")
    policy.observe(.suspendCompleted(app: "a", at: t(11)))
    #expect(policy.nextDeadline == nil)
    #expect(policy.app(named: "a")?.bandEnteredAt == t(11))
  }

  @Test func aLateTickStillSuspends() throws {
    var policy = JetsamPolicy(grace: .seconds(10))
    try policy.start("a", pid: 10, at: t(1))
    #expect(policy.observe(.tick(at: t(30))).moves == [Move("a", .background, .suspended)])
  }

  @Test func leavingTheBackgroundCancelsTheGraceAndReturningStartsANewOne() throws {
    var policy = JetsamPolicy(grace: .seconds(10))
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.activate(app: "a", at: t(5)))
    #expect(policy.nextDeadline == nil)
    #expect(policy.observe(.tick(at: t(11))) == [])
    _ = try policy.handle(.moveToBackground(app: "a", at: t(8)))
    #expect(policy.nextDeadline == t(18))
    #expect(policy.observe(.tick(at: t(17))) == [])
    #expect(policy.observe(.tick(at: t(18))).moves == [Move("a", .background, .suspended)])
  }

  @Test func aForegroundAppPushedOutByAnotherGetsAGrace() throws {
    var policy = JetsamPolicy(slots: 1, grace: .seconds(10))
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    #expect(policy.nextDeadline == nil)
    try policy.start("b", pid: 11, at: t(3), foreground: true)
    #expect(policy.nextDeadline == t(13))
  }

  @Test func withoutAGraceNothingIsSuspendedAutomatically() throws {
    var policy = JetsamPolicy(grace: nil)
    try policy.start("a", pid: 10, at: t(1))
    #expect(policy.nextDeadline == nil)
    #expect(policy.observe(.tick(at: t(1000))) == [])
    #expect(policy.app(named: "a")?.state == .background)
  }

  @Test func anAppBeingKilledIsNotSuspended() throws {
    var policy = JetsamPolicy(grace: .seconds(10))
    try policy.start("a", pid: 10, at: t(1))
    _ = try policy.handle(.kill(app: "a", reason: .abnormal, at: t(2)))
    #expect(policy.observe(.tick(at: t(11))) == [])
    #expect(policy.nextDeadline == nil)
  }
}
