import Foundation
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Signpost metrics of `jetsamctl metrics --json` and the launch series of the Prometheus exposition, from real
/// processes.
@Suite(
  "Signpost metrics and launch series on real processes", .serialized,
  .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .timeLimit(.minutes(3)), .offThePool)
struct SignpostMetricsIntegrationTests {
  static func signpost(_ payload: MetricPayload?, _ name: String) -> SignpostMetricPayload? {
    payload?.signpostMetrics?.first { $0.signpostName == name }
  }

  @Test("the demo app's save signpost: a count, a duration and its cost, in the payload and the schema")
  func demoSave() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("demo", ["--state-dir", daemon.directory], executable: Binaries.current.demoApp)
    try daemon.waitUntil("the first draw acknowledged") {
      try LaunchMetricsIntegrationTests.payload(daemon, "demo").0?.applicationLaunchMetrics?
        .histogrammedTimeToFirstDrawKey.total == 1
    }
    // didEnterBackground saves: a save signpost, begin and end.
    try daemon.ctl(["background", "demo"])
    try daemon.waitUntil("the save's interval counted, and its counters read at both ends") {
      let save = Self.signpost(try LaunchMetricsIntegrationTests.payload(daemon, "demo").0, "save")
      return save?.signpostIntervalData.signpostAverageMemory != nil
    }
    let (found, json) = try LaunchMetricsIntegrationTests.payload(daemon, "demo")
    let save = try #require(Self.signpost(found, "save"))
    #expect(save.totalSignpostCount >= 1)
    #expect(save.signpostCategory == "app")
    #expect(save.signpostIntervalData.histogrammedSignpostDurations.total == save.totalSignpostCount)
    #expect(MetricKitMeasurement.value(of: save.signpostIntervalData.signpostAverageMemory ?? "") ?? 0 > 0)
    #expect(save.signpostIntervalData.signpostCumulativeCPUTime != nil)
    #expect(save.signpostIntervalData.signpostCumulativeLogicalWrites != nil)
    #expect(try SchemaCheck.violations(json, schema: "metrickit-metric-payloads") == "")
    let misspelt = json.replacingOccurrences(of: "totalSignpostCount", with: "totalSignpostCnt")
    #expect(try SchemaCheck.violations(misspelt, schema: "metrickit-metric-payloads").contains("totalSignpost"))

    // Terminated: the record carries the figures, and the payload still shows them.
    try daemon.ctl(["terminate", "demo"])
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect((record.launchMetrics?.signposts["save"]?.totalCount ?? 0) >= 1)
    let after = try #require(Self.signpost(try LaunchMetricsIntegrationTests.payload(daemon, "demo").0, "save"))
    #expect(after.totalSignpostCount >= save.totalSignpostCount)
  }

  @Test("the exposition's launch, resume and hang histograms, CPU seconds and peak memory; promtool accepts them")
  func prometheus() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    try daemon.launch("slow", ["speak", "--slow-in", "didBecomeActive", "300"])
    try daemon.waitUntil("the hang counted") {
      try LaunchMetricsIntegrationTests.payload(daemon, "slow").0?.applicationResponsivenessMetrics?
        .histogrammedAppHangTime.total == 1
    }
    let running = try daemon.ctl(["metrics", "--prometheus"]).stdout
    let samples = MetricsIntegrationTests.samples(running)
    #expect(samples[#"jetsam_app_launch_seconds_count{app="slow"}"#] == 1, "\(running)")
    #expect(samples[#"jetsam_app_hang_seconds_bucket{app="slow",le="0.25"}"#] == 0, "\(running)")
    #expect(samples[#"jetsam_app_hang_seconds_bucket{app="slow",le="0.5"}"#] == 1, "\(running)")
    #expect(samples[#"jetsam_app_resume_seconds_count{app="slow"}"#] == 0, "\(running)")
    #expect(samples[#"jetsam_app_peak_memory_bytes{app="slow"}"#] ?? 0 > 0, "\(running)")
    let check = try MetricsIntegrationTests.promtoolCheck(running)
    #expect(check.status == 0 && check.stdout.isEmpty, "promtool: \(check.stdout)\(check.stderr)")

    // Ended: the record's figures stay in the series, with the launch's CPU time.
    try daemon.ctl(["kill", "slow"])
    _ = try daemon.waitForRecords(1)
    try daemon.waitUntil("the exit counted") {
      let exposition = try daemon.ctl(["metrics", "--prometheus"]).stdout
      return MetricsIntegrationTests.samples(exposition)[#"jetsam_app_exited_cpu_seconds_total{app="slow"}"#] != nil
    }
    let ended = try daemon.ctl(["metrics", "--prometheus"]).stdout
    #expect(MetricsIntegrationTests.samples(ended)[#"jetsam_app_hang_seconds_count{app="slow"}"#] == 1, "\(ended)")
    let after = try MetricsIntegrationTests.promtoolCheck(ended)
    #expect(after.status == 0 && after.stdout.isEmpty, "promtool: \(after.stdout)\(after.stderr)")
  }
}
