import JetsamCore
import Testing

/// A suspend whose processes do not all stop in time: the policy decides what the app counts as.
@Suite("Suspend timeout")
struct SuspendTimeoutTests {
  @Test("past the timeout the app counts as suspended from the request, marked incomplete until it stops")
  func incomplete() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    #expect(policy.nextDeadline == t(2), "the default timeout is 1 s")
    #expect(policy.observe(.tick(at: t(1, ms: 999))).isEmpty)
    #expect(policy.observe(.tick(at: t(2))) == [.suspendIncomplete(app: "a", pid: 10)])
    let status = try #require(policy.app(named: "a"))
    #expect(status.state == .suspended && status.suspendIncomplete)
    #expect(status.bandEnteredAt == t(1), "suspended since the request")
    #expect(policy.nextDeadline == nil)
    // It stops after all: complete, and its suspended time counts from then.
    policy.observe(.suspendCompleted(app: "a", at: t(5)))
    #expect(policy.app(named: "a")?.suspendIncomplete == false)
    #expect(policy.app(named: "a")?.bandEnteredAt == t(5))
  }

  @Test("an incomplete suspension is in the idle band: jetsam takes it like any suspended app")
  func victim() throws {
    var policy = JetsamPolicy()
    try policy.start("stuck", pid: 10, at: t(0))
    _ = try policy.handle(.suspend(app: "stuck", at: t(1)))
    policy.observe(.tick(at: t(2)))
    let actions = policy.sample(Available.urgent, at: t(3))
    #expect(actions.killed == ["stuck"])
    let record = try #require(policy.exits("stuck", sigkill, at: t(3)).records.first)
    #expect(record.lifecycle.state == .suspended && record.lifecycle.suspendIncomplete == true)
  }

  @Test("a completed or resumed suspension leaves no deadline and no mark")
  func completedOrResumed() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    _ = try policy.handle(.resume(app: "a", at: t(1, ms: 500)))
    #expect(policy.nextDeadline == nil)
    #expect(policy.observe(.tick(at: t(3))).isEmpty)
    #expect(policy.app(named: "a")?.suspendIncomplete == false)
  }

  @Test("the timeout comes from the config")
  func configured() throws {
    var config = testConfig()
    config.suspendTimeout = .milliseconds(250)
    var policy = JetsamPolicy(config: config)
    try policy.start("a", pid: 10, at: t(0))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    #expect(policy.nextDeadline == t(1, ms: 250))
  }
}
