import JetsamCore
import JetsamValues
import Testing

/// The watchdog under a debugger: iOS holds it while one is attached, and the deadline runs again once it has gone;
/// the `kill` rule kills as the device would without the debugger.
@Suite("Watchdog under a debugger")
struct WatchdogDebuggerTests {
  /// A watched app hung in didEnterBackground from t(10) (deadline t(15)), with the watchdog rule `rule`.
  static func hungApp(_ rule: WatchdogDebuggerRule) throws -> JetsamPolicy {
    try hungAppAndEvent(rule).policy
  }

  /// The same, with the id of its didEnterBackground.
  static func hungAppAndEvent(_ rule: WatchdogDebuggerRule) throws -> (policy: JetsamPolicy, event: Int) {
    var config = testConfig()
    config.watchdogUnderDebugger = rule
    var policy = JetsamPolicy(config: config)
    let moved = try AppChannelTests.backgroundedWatchedApp(&policy)
    let id = try #require(AppChannelTests.lastEventID(moved, .didEnterBackground))
    // Everything before it is answered: its handler is the one that hangs.
    for earlier in 1..<id {
      policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: earlier), at: t(10)))
    }
    #expect(policy.nextDeadline == t(15))
    return (policy, id)
  }

  static func tracer(_ policy: inout JetsamPolicy, _ tracer: Int32?, at: Instant) -> [PolicyAction] {
    policy.observe(.tracerChecked(app: "a", pid: 10, tracer: tracer, at: at))
  }

  @Test("at the deadline it asks first; with a debugger attached the watchdog holds, and asks again shortly")
  func holdsWhileAttached() throws {
    var policy = try Self.hungApp(.hold)
    #expect(policy.observe(.tick(at: t(15))) == [.checkTracer(app: "a", pid: 10)])
    #expect(policy.nextDeadline == nil, "nothing more until the answer")
    #expect(
      Self.tracer(&policy, 4242, at: t(15)) == [
        .watchdogHeld(app: "a", pid: 10, event: .didEnterBackground, tracer: 4242)
      ])
    #expect(policy.nextDeadline == t(15, ms: 250))
    // Still attached, a minute on: no kill, and the hold is not announced again.
    var at = t(15, ms: 250)
    while at < t(75) {
      #expect(policy.observe(.tick(at: at)) == [.checkTracer(app: "a", pid: 10)])
      #expect(Self.tracer(&policy, 4242, at: at).isEmpty)
      at = try #require(policy.nextDeadline)
    }
    // Detached: the whole allowance again from then, and the kill once it has run out.
    #expect(policy.observe(.tick(at: at)) == [.checkTracer(app: "a", pid: 10)])
    #expect(
      Self.tracer(&policy, nil, at: at) == [.watchdogHeld(app: "a", pid: 10, event: .didEnterBackground, tracer: nil)])
    let rearmed = at.advanced(by: .seconds(5))
    #expect(policy.nextDeadline == rearmed)
    #expect(policy.observe(.tick(at: rearmed)) == [.checkTracer(app: "a", pid: 10)])
    let kill = Self.tracer(&policy, nil, at: rearmed)
    #expect(kill.killed == ["a"])
    #expect(kill.first == .diagnose(app: "a", pid: 10, .hang(event: .didEnterBackground, seconds: 5)))
  }

  @Test("no debugger: the answer is the kill, as before")
  func noDebuggerKills() throws {
    var policy = try Self.hungApp(.hold)
    #expect(policy.observe(.tick(at: t(15))) == [.checkTracer(app: "a", pid: 10)])
    #expect(Self.tracer(&policy, nil, at: t(15)).killed == ["a"])
    let record = try #require(
      recordOf(policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: t(15)))))
    #expect(record.cause.reason == .appWatchdog && record.evidence.watchdogEvent == "didEnterBackground")
  }

  @Test("the acknowledgement while held ends the hold; an answer for an earlier process is ignored")
  func acknowledgedWhileHeld() throws {
    var (policy, id) = try Self.hungAppAndEvent(.hold)
    _ = policy.observe(.tick(at: t(15)))
    #expect(policy.observe(.tracerChecked(app: "a", pid: 99, tracer: nil, at: t(15))).isEmpty)
    _ = Self.tracer(&policy, 4242, at: t(15))
    _ = policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(16)))
    #expect(policy.observe(.tick(at: t(16))).killed.isEmpty)
  }

  @Test("the kill rule: the watchdog kills under a debugger too")
  func killRule() throws {
    var policy = try Self.hungApp(.kill)
    #expect(policy.observe(.tick(at: t(15))).killed == ["a"])
  }
}
