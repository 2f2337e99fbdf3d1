import JetsamConfig
import JetsamCore
import Testing

@testable import JetsamShell

/// The Prometheus exposition rendered from made-up figures: what it reads of the daemon is all in
/// ``MetricsFigures``, so every sample can be checked against what the figures said.
@Suite("Metrics exposition")
struct MetricsExpositionTests {
  struct Figures: MetricsFigures {
    var policy = TestPolicy().policy
    var cgroupMode = "v2"
    var suspendMode = SuspendConfig.Mode.freezer
    var ramBytes: Int64 = 4 << 30
    var availableBytes: Int64 = 1 << 30
    var configured: Set<String> = []
    var cgroups: [String: FakeCgroup] = [:]
    var counters = ExitCounters()
    var killTimings = KillTimings()
    var recordsWritten = 0
    var unwrittenRecords: [ExitRecord] = []
    var refusedCrashReports = 0

    func isConfigured(_ name: String) -> Bool { configured.contains(name) }
    func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? { cgroups[name] }
  }

  static func record(_ app: String, reason: ExitReason, state: CoarseState, endedBy: ExitAgent) -> ExitRecord {
    ExitRecord(
      app: app, pid: 7, launch: 1,
      cause: ExitCause(reason: reason, terminationReason: "SIGKILL", endedBy: endedBy, signal: 9),
      lifecycle: ExitLifecycle(state: state, aliveSeconds: 2, stateSeconds: 1),
      pressure: ExitPressure(level: .critical, availableBytes: 0))
  }

  @Test("the device, the level and the modes come from the figures")
  func device() {
    var figures = Figures()
    figures.cgroupMode = "v1"
    figures.ramBytes = 2 << 30
    figures.availableBytes = 300 << 20
    let text = MetricsExposition.text(figures)
    #expect(text.contains(#"jetsam_info{version="\#(Daemon.version)",cgroup_mode="v1",suspend_mode="freezer"} 1"#))
    #expect(text.contains("jetsam_device_ram_bytes 2147483648\n"))
    #expect(text.contains("jetsam_device_available_bytes 314572800\n"))
    #expect(text.contains("jetsam_pressure_level 0\n"))
  }

  @Test("running apps by state and band, each with its cgroup's memory and CPU; ended apps are left out")
  func runningApps() throws {
    var policy = TestPolicy()
    try policy.run("mail", pid: 1000)
    try policy.run("maps", pid: 1001, foreground: false)
    try policy.run("gone", pid: 1002, foreground: false)
    try policy.submit([.exited(app: "gone", pid: 1002, end: .exited(code: 0), oomKilled: false, at: TestPolicy.at)])
    var figures = Figures(policy: policy.policy, configured: ["mail"])
    let mail = FakeCgroup(name: "mail", limits: AppLimits())
    mail.memory = 64 << 20
    let maps = FakeCgroup(name: "maps", limits: AppLimits())
    maps.memory = 8 << 20
    figures.cgroups = ["mail": mail, "maps": maps]
    let text = MetricsExposition.text(figures)
    #expect(text.contains(#"jetsam_apps{state="foreground"} 1"#))
    #expect(text.contains(#"jetsam_apps{state="background"} 1"#))
    #expect(text.contains(#"jetsam_apps{state="suspended"} 0"#))
    #expect(text.contains(#"jetsam_apps_by_band{band="background"} 1"#))
    #expect(text.contains(#"jetsam_app_memory_bytes{app="mail"} 67108864"#))
    #expect(text.contains(#"jetsam_app_memory_bytes{app="maps"} 8388608"#))
    #expect(text.contains(#"jetsam_app_cpu_seconds_total{app="mail"} 1.5"#))
    #expect(!text.contains(#"app="gone""#), "an ended app has no series of its own but its exit")
  }

  @Test("the counters of durable records, verdicts, refused crash reports and records written")
  func counters() {
    var figures = Figures()
    figures.counters.count(
      Self.record("notes", reason: .memoryPressure, state: .suspended, endedBy: .jetsam), configured: true)
    figures.counters.count(
      Self.record("notes", reason: .memoryPressure, state: .suspended, endedBy: .jetsam), configured: true)
    figures.counters.count(
      Self.record("mail", reason: .abnormal, state: .foreground, endedBy: .signal), configured: true)
    figures.counters.countVerdict(app: "notes", verdict: .match, configured: true)
    figures.recordsWritten = 3
    figures.refusedCrashReports = 2
    let text = MetricsExposition.text(figures)
    #expect(text.contains(#"jetsam_exits_total{app="notes",reason="memoryPressure",state="suspended"} 2"#))
    #expect(text.contains(#"jetsam_exits_total{app="mail",reason="abnormal",state="foreground"} 1"#))
    #expect(text.contains(#"jetsam_kills_total{reason="memoryPressure"} 2"#))
    #expect(!text.contains(#"jetsam_kills_total{reason="abnormal"}"#), "a crash is not jetsam's kill")
    #expect(text.contains(#"jetsam_restoration_verdicts_total{app="notes",verdict="match"} 1"#))
    #expect(text.contains("jetsam_exit_records_written_total 3\n"))
    #expect(text.contains("jetsam_crash_reports_refused_total 2\n"))
    #expect(text.contains("jetsam_kill_latency_seconds_count 0\n"))
  }
}
