import JetsamCore
import Testing

/// When the core asks for diagnostics: a hang before its watchdog kill (AppChannelTests), a CPU exception
/// (CPUMonitorTests), and every crash a running app's handler reports.
@Suite("Crash diagnostics")
struct DiagnosticRequestTests {
  @Test("a crash reported by a running app's handler gets its diagnostic; one of an earlier process does not")
  func crashes() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    let crash = CrashReport(pid: 12, tid: 13, signal: 11, code: 1, address: 0)
    #expect(
      policy.observe(.crashReported(app: "a", pid: 10, crash: crash, at: t(1)))
        == [.diagnose(app: "a", pid: 10, .crash(crash))])
    #expect(policy.observe(.crashReported(app: "a", pid: 9, crash: crash, at: t(1))).isEmpty)
    #expect(policy.observe(.crashReported(app: "b", pid: 10, crash: crash, at: t(1))).isEmpty)
  }

  @Test("each process's crash is diagnosed once, and a launch gets at most its budget of crash diagnostics")
  func crashBudget() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0))
    let budget = policy.config.crashDiagnosesPerLaunch
    let first = CrashReport(pid: 10, tid: 10, signal: 11, code: 1, address: 0)
    #expect(policy.observe(.crashReported(app: "a", pid: 10, crash: first, at: t(1))).count == 1)
    // The same process again (its handler reports once: this is no crash), from whatever thread.
    var again = first
    again.tid = 11
    #expect(policy.observe(.crashReported(app: "a", pid: 10, crash: again, at: t(1))).isEmpty)
    var diagnosed = 1
    for child in Int32(100)..<Int32(100 + 2 * budget) {
      let crash = CrashReport(pid: child, tid: child, signal: 6, code: -6, address: 0)
      diagnosed += policy.observe(.crashReported(app: "a", pid: 10, crash: crash, at: t(2))).count
    }
    #expect(diagnosed == budget)
  }
}
