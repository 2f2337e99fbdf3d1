import JetsamConfig
import JetsamCore
import Testing

@testable import JetsamShell

/// The exposition's launch series (``LaunchSeries``) from made-up records: histograms by app in the core's bucket
/// edges, the ended launches' CPU time and the peak memory, app labels bounded as the exit counters'.
@Suite("Metrics exposition: launch series")
struct LaunchSeriesTests {
  static func record(_ app: String) -> ExitRecord {
    var record = MetricsExpositionTests.record(app, reason: .memoryPressure, state: .suspended, endedBy: .jetsam)
    var metrics = LaunchMetrics()
    metrics.timeToFirstDrawSeconds = 0.3
    metrics.hangTimes.count(seconds: 0.4)
    metrics.hangTimes.count(seconds: 90)
    metrics.resumeTimes.count(seconds: 0.12)
    metrics.suspendedMemory.hold(bytes: 4 << 20, for: 2)
    metrics.bytesWritten = 1 << 20
    record.launchMetrics = metrics
    record.usage.cpuSeconds = 2.5
    record.usage.peakMemoryBytes = 3 << 20
    return record
  }

  @Test("records' launch, resume and hang times as cumulative histograms; a duration past 60 s only in +Inf")
  func histograms() throws {
    var figures = MetricsExpositionTests.Figures()
    figures.counters.count(Self.record("notes"), configured: true)
    figures.counters.count(Self.record("notes"), configured: true)
    let text = MetricsExposition.text(figures)
    #expect(text.contains("# TYPE jetsam_app_launch_seconds histogram\n"))
    #expect(text.contains(#"jetsam_app_launch_seconds_bucket{app="notes",le="0.25"} 0"#))
    #expect(text.contains(#"jetsam_app_launch_seconds_bucket{app="notes",le="0.5"} 2"#))
    #expect(text.contains(#"jetsam_app_launch_seconds_bucket{app="notes",le="+Inf"} 2"#))
    #expect(text.contains(#"jetsam_app_launch_seconds_count{app="notes"} 2"#))
    #expect(text.contains(#"jetsam_app_resume_seconds_bucket{app="notes",le="0.1"} 0"#))
    #expect(text.contains(#"jetsam_app_resume_seconds_bucket{app="notes",le="0.25"} 2"#))
    #expect(text.contains(#"jetsam_app_hang_seconds_bucket{app="notes",le="60"} 2"#), "the 90 s hang is over 60 s")
    #expect(text.contains(#"jetsam_app_hang_seconds_bucket{app="notes",le="+Inf"} 4"#))
    #expect(!text.contains(#"le="120""#), "the last bucket also holds longer durations: no bound of its own")
    #expect(text.contains(#"jetsam_app_exited_cpu_seconds_total{app="notes"} 5"#))
    #expect(text.contains(#"jetsam_app_peak_memory_bytes{app="notes"} 3145728"#))
    #expect(text.contains("# TYPE jetsam_app_suspended_memory_bytes gauge\n"))
    #expect(text.contains(#"jetsam_app_suspended_memory_bytes{app="notes"} 4194304"#), "the two launches' average")
    #expect(text.contains("# TYPE jetsam_app_written_bytes_total counter\n"))
    #expect(text.contains(#"jetsam_app_written_bytes_total{app="notes"} 2097152"#), "both launches' writes")
  }

  @Test("a running app's figures so far add to its records'")
  func running() throws {
    var policy = TestPolicy()
    try policy.run("mail", pid: 1000)
    var figures = MetricsExpositionTests.Figures(policy: policy.policy, configured: ["mail"])
    figures.counters.count(Self.record("mail"), configured: true)
    let cgroup = FakeCgroup(name: "mail", limits: AppLimits())
    cgroup.memory = 9 << 20  // the fake's peak is twice its memory: 18 MiB
    figures.cgroups = ["mail": cgroup]
    let text = MetricsExposition.text(figures)
    let launches = try #require(policy.policy.launchMetrics(of: "mail", at: TestPolicy.at))
    let running = launches.timeToFirstDrawSeconds == nil ? 0 : 1
    #expect(text.contains(#"jetsam_app_launch_seconds_count{app="mail"} \#(1 + running)"#), "\(text)")
    #expect(text.contains(#"jetsam_app_peak_memory_bytes{app="mail"} 18874368"#), "the running launch's peak is higher")
  }

  @Test("a launch that ended keeps its figures while its record is made durable: no counter dips at an exit")
  func unwrittenRecord() {
    var figures = MetricsExpositionTests.Figures(configured: ["mail"])
    figures.counters.count(Self.record("mail"), configured: true)
    let before = MetricsExposition.text(figures)
    #expect(before.contains(#"jetsam_app_launch_seconds_count{app="mail"} 1"#))
    // The app has exited (it is no longer running) and its record is on its way to the log.
    figures.unwrittenRecords = [Self.record("mail")]
    let meanwhile = MetricsExposition.text(figures)
    #expect(meanwhile.contains(#"jetsam_app_launch_seconds_count{app="mail"} 2"#), "\(meanwhile)")
    #expect(meanwhile.contains(#"jetsam_app_exited_cpu_seconds_total{app="mail"} 5"#))
    #expect(meanwhile.contains(#"jetsam_app_written_bytes_total{app="mail"} 2097152"#))
    #expect(
      meanwhile.contains(#"jetsam_exits_total{app="mail",reason="memoryPressure",state="suspended"} 1"#),
      "the exit itself is counted once durable")
    // Durable: counted once, from the counters.
    figures.unwrittenRecords = []
    figures.counters.count(Self.record("mail"), configured: true)
    #expect(MetricsExposition.text(figures).contains(#"jetsam_app_launch_seconds_count{app="mail"} 2"#))
  }

  @Test("ad-hoc app labels are bounded as the exit counters': the rest add up under other")
  func boundedLabels() {
    var figures = MetricsExpositionTests.Figures()
    for index in 0..<(ExitCounters.maxAdHocApps + 20) {
      figures.counters.count(Self.record("adhoc\(index)"), configured: false)
    }
    let text = MetricsExposition.text(figures)
    let series = text.split(separator: "\n").filter { $0.hasPrefix("jetsam_app_launch_seconds_count{") }
    #expect(series.count == ExitCounters.maxAdHocApps + 1)
    #expect(text.contains(#"jetsam_app_launch_seconds_count{app="other"} 20"#))
  }
}
