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
}
