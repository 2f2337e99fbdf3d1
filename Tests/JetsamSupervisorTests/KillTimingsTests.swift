import JetsamCore
import JetsamValues
import Testing

@testable import JetsamShell

/// jetsam's pressure kills timed along the loop: from the observation that made jetsam kill to the SIGKILL, and from
/// the SIGKILL to the exit, when the memory is back; other kills are not jetsam's to time.
@Suite("Kill timings")
struct KillTimingsTests {
  let observed = Instant.seconds(100)

  func after(_ milliseconds: Int64) -> Instant { observed.advanced(by: .milliseconds(milliseconds)) }

  /// A kill of `app` for `decision` (jetsam's, by default) decided on a sample taken at ``observed``.
  func decide(_ timings: inout KillTimings, _ app: String = "a", decision: KillInFlight = .jetsamAtCritical([])) {
    timings.handled(.memorySampled(available: 100, at: observed))
    timings.performed(.kill(app: app, pid: 10, reason: .memoryPressure, decision: decision))
  }

  @Test("a pressure kill: from its sample to its SIGKILL, and from the SIGKILL to the exit")
  func pressureKill() {
    var timings = KillTimings()
    decide(&timings)
    timings.handled(.killSignalled(app: "a", pid: 10, at: after(2), memory: [:]))
    timings.handled(
      .exited(app: "a", pid: 10, end: .signaled(signal: 9, dumpedCore: false), oomKilled: false, at: after(50)))
    #expect(timings.killLatency.count == 1 && abs(timings.killLatency.sum - 0.002) < 1e-9)
    #expect(timings.memoryBack.count == 1 && abs(timings.memoryBack.sum - 0.048) < 1e-9)
    #expect(timings.killLatency.buckets.first { $0.1 == 1 }?.0 == "0.0025", "in the 2.5 ms bucket")
  }

  @Test("kills that are not jetsam's are not timed: another kind (even for memoryPressure), or a request's")
  func otherKills() {
    var timings = KillTimings()
    // The kill's kind says whose it is, not its reason: a user's kill recorded as memoryPressure is not jetsam's.
    decide(&timings, decision: KillInFlight(kill: .user(.memoryPressure), level: .critical, availableBytes: 0))
    // A request's kill of an app jetsam is killing already passes jetsam's decision on: still a request.
    timings.handled(.kill(app: "b", reason: .memoryPressure, at: observed))
    timings.performed(.kill(app: "b", pid: 20, reason: .memoryPressure, decision: .jetsamAtCritical([])))
    for app in ["a", "b"] {
      timings.handled(.killSignalled(app: app, pid: 10, at: after(2), memory: [:]))
      timings.handled(.exited(app: app, pid: 10, end: .unobserved, oomKilled: false, at: after(9)))
    }
    #expect(timings.killLatency.count == 0 && timings.memoryBack.count == 0)
  }

  @Test("an app that exits before its SIGKILL goes out is not timed; nor is an exit without a SIGKILL")
  func exitFirst() {
    var timings = KillTimings()
    decide(&timings)
    timings.handled(.exited(app: "a", pid: 10, end: .exited(code: 0), oomKilled: false, at: after(1)))
    timings.handled(.killSignalled(app: "a", pid: 10, at: after(2), memory: [:]))
    timings.handled(.exited(app: "c", pid: 30, end: .exited(code: 0), oomKilled: false, at: after(3)))
    #expect(timings.killLatency.count == 0 && timings.memoryBack.count == 0)
  }
}
