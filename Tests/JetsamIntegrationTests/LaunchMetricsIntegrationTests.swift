import Foundation
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The launch, responsiveness, time, CPU and memory families of `jetsamctl metrics --json`, from real processes.
@Suite(
  "Launch metrics on real processes", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct LaunchMetricsIntegrationTests {
  /// The payload of `app` (records and running launch), and its JSON as printed.
  static func payload(_ daemon: DaemonHarness, _ app: String) throws -> (MetricPayload?, String) {
    let json = try daemon.ctl(["--json", "metrics", "--app", app])
    guard json.status == 0 else { throw TestKitError("metrics: \(json.stderr)") }
    return (try JSONDecoder().decode([MetricPayload].self, from: Data(json.stdout.utf8)).first, json.stdout)
  }

  static func seconds(_ text: String?) -> Double { text.flatMap(MetricKitMeasurement.value(of:)) ?? -1 }

  @Test("the demo app: 3 s in the foreground, suspended 4 s, returned, terminated: launch and resume time, CPU, memory")
  func demoApp() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("demo", ["--state-dir", daemon.directory], executable: Binaries.current.demoApp)
    try daemon.waitUntil("3 s in the foreground, the first draw acknowledged") {
      let payload = try Self.payload(daemon, "demo").0
      return payload?.applicationLaunchMetrics?.histogrammedTimeToFirstDrawKey.total == 1
        && Self.seconds(payload?.applicationTimeMetrics?.cumulativeForegroundTime) >= 3
    }
    try daemon.ctl(["background", "demo"])
    try daemon.ctl(["suspend", "demo"])
    try daemon.waitUntil("4 s suspended") {
      guard let info = try daemon.apps()["demo"] else { return false }
      return info.status.state.coarse == .suspended && info.measured.stateSeconds >= 4
    }
    try daemon.ctl(["activate", "demo"])
    try daemon.waitUntil("the return acknowledged") {
      try Self.payload(daemon, "demo").0?.applicationLaunchMetrics?.histogrammedResumeTime.total == 1
    }
    try daemon.ctl(["terminate", "demo"])
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.launchMetrics?.timeToFirstDrawSeconds != nil)
    let (found, json) = try Self.payload(daemon, "demo")
    let payload = try #require(found)
    #expect(Self.seconds(payload.applicationTimeMetrics?.cumulativeForegroundTime) >= 3)
    #expect(Self.seconds(payload.applicationTimeMetrics?.cumulativeBackgroundTime) >= 0)
    #expect(payload.applicationLaunchMetrics?.histogrammedTimeToFirstDrawKey.total == 1)
    #expect(payload.applicationLaunchMetrics?.histogrammedResumeTime.total == 1)
    #expect(Self.seconds(payload.cpuMetrics?.cumulativeCPUTime) > 0)
    #expect(Self.seconds(payload.memoryMetrics?.peakMemoryUsage) > 0)
    #expect(try SchemaCheck.violations(json, schema: "metrickit-metric-payloads") == "")
    // Without --json: the app's block, a line per family, in the payload's units.
    let text = try daemon.ctl(["metrics", "--app", "demo"]).stdout
    for line in [
      "demo  ", "\n  exits       foreground: ", "\n  launches    1 to first draw, ",
      "\n  resumes     1 to the acknowledged didBecomeActive, ", "\n  time        foreground ", "\n  cpu         ",
      "\n  memory      peak ", ", suspended ", "\n  signpost    save ×",
    ] {
      #expect(text.contains(line), "\(line) in \(text)")
    }
    // The schema can fail: a misspelt key of the new families is caught.
    let misspelt = json.replacingOccurrences(of: "histogrammedResumeTime", with: "histogrammedResumeTme")
    #expect(try SchemaCheck.violations(misspelt, schema: "metrickit-metric-payloads").contains("histogrammedResume"))
  }

  @Test(
    "a handler that sleeps 400 ms in didBecomeActive is a hang in the responsiveness histogram",
    arguments: ["c", "python"])
  func slowHandler(_ client: String) throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    if client == "c" {
      try daemon.launch("slow", ["speak", "--slow-in", "didBecomeActive", "400"])
    } else {
      try daemon.launch(
        "slow", [Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/slow_app.py"],
        options: ["--env", "SLOW_IN=didBecomeActive", "--env", "SLOW_MS=400"], executable: "/usr/bin/python3")
    }
    try daemon.waitUntil("the hang counted") {
      try Self.payload(daemon, "slow").0?.applicationResponsivenessMetrics?.histogrammedAppHangTime.total == 1
    }
    let (payload, json) = try Self.payload(daemon, "slow")
    let bucket = try #require(payload?.applicationResponsivenessMetrics?.histogrammedAppHangTime.histogramValue["0"])
    #expect(bucket.bucketStart == "250 ms" && bucket.bucketEnd == "500 ms")
    #expect(payload?.applicationLaunchMetrics?.histogrammedTimeToFirstDrawKey.total == 1)
    #expect(try SchemaCheck.violations(json, schema: "metrickit-metric-payloads") == "")
  }

  @Test("a jetsamd restart while the app runs keeps its figures")
  func restart() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    try daemon.launch("kept", ["speak", "--slow-in", "didBecomeActive", "300"])
    try daemon.waitUntil("its first draw and hang, and a second in the foreground") {
      let payload = try Self.payload(daemon, "kept").0
      return payload?.applicationResponsivenessMetrics?.histogrammedAppHangTime.total == 1
        && Self.seconds(payload?.applicationTimeMetrics?.cumulativeForegroundTime) >= 1
    }
    let statePath = daemon.stateDirectory + "/state.json"
    try daemon.waitUntil("the figures saved") {
      (try? String(contentsOfFile: statePath, encoding: .utf8))?.contains("\"hangTimes\"") == true
    }
    daemon.crash()
    try daemon.restart()
    let payload = try #require(try Self.payload(daemon, "kept").0)
    #expect(payload.applicationResponsivenessMetrics?.histogrammedAppHangTime.total == 1)
    #expect(payload.applicationLaunchMetrics?.histogrammedTimeToFirstDrawKey.total == 1)
    #expect(Self.seconds(payload.applicationTimeMetrics?.cumulativeForegroundTime) >= 1)
  }
}
