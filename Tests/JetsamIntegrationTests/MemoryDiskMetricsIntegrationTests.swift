import Foundation
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `averageSuspendedMemory`, `cumulativeLogicalWrites`, and a running app's CPU time and peak memory in
/// `jetsamctl metrics --json`, from real processes.
@Suite(
  "Memory, disk and CPU metrics on real processes", .serialized,
  .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct MemoryDiskMetricsIntegrationTests {
  static func payload(_ daemon: DaemonHarness) throws -> (MetricPayload?, String) {
    try LaunchMetricsIntegrationTests.payload(daemon, "demo")
  }

  static func value(_ text: String?) -> Double { text.flatMap(MetricKitMeasurement.value(of:)) ?? -1 }

  /// A directory on a disk for an app's writes (/var/tmp is the VM's ext4 scratch disk): writes to tmpfs count
  /// nothing. Anyone may write in it (the app may run as another user); the caller removes it.
  static func diskDirectory(_ name: String) throws -> String {
    let directory = "/var/tmp/jetsam-\(name)-\(getpid())"
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    return directory
  }

  @Test("a program that writes 3 MiB and ends before the monitor reads it again: its record counts the writes")
  func writesBeforeTheEnd() throws {
    // On a disk; fsync'd, so that a cgroup's io.stat (pure v2) has counted them by the end too.
    let directory = try Self.diskDirectory("lastwrites")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let daemon = try DaemonHarness(config: "{}")
    defer { daemon.stop() }
    try daemon.launch(
      "writer", ["if=/dev/zero", "of=\(directory)/out", "bs=1M", "count=3", "conv=fsync", "status=none"],
      executable: "/bin/dd")
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.cause.reason == .normalAppExit, "dd ends on its own: \(record)")
    #expect((record.launchMetrics?.bytesWritten ?? 0) >= 3 << 20, "\(String(describing: record.launchMetrics))")
  }

  @Test("the demo app: 3 s in the foreground, saved, suspended 11 s, returned, terminated")
  func demoApp() throws {
    // The state is saved on a disk, where its writes count.
    let stateDirectory = try Self.diskDirectory("memmetrics")
    defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("demo", ["--state-dir", stateDirectory], executable: Binaries.current.demoApp)
    try daemon.waitUntil("3 s in the foreground") {
      Self.value(try Self.payload(daemon).0?.applicationTimeMetrics?.cumulativeForegroundTime) >= 3
    }
    // Running, no record yet: its CPU time and peak memory so far are in the payload.
    let (running, runningJSON) = try Self.payload(daemon)
    #expect(running?.applicationExitMetrics.total == 0)
    #expect(Self.value(running?.cpuMetrics?.cumulativeCPUTime) > 0)
    #expect(Self.value(running?.memoryMetrics?.peakMemoryUsage) > 0)
    #expect(try SchemaCheck.violations(runningJSON, schema: "metrickit-metric-payloads") == "")

    try daemon.ctl(["background", "demo"])
    let stateFile = stateDirectory + "/jetsam-demo-app.state.json"
    try daemon.waitUntil("the demo app saved its state") { FileManager.default.fileExists(atPath: stateFile) }
    try daemon.ctl(["suspend", "demo"])
    // Past the first round (PolicyConfig.suspendedMemoryInterval, 10 s): read at the suspension and in the round.
    try daemon.waitUntil("11 s suspended", timeout: 25) {
      guard let info = try daemon.apps()["demo"] else { return false }
      return info.status.state.coarse == .suspended && info.measured.stateSeconds >= 11
    }
    let suspended = try #require(try Self.payload(daemon).0?.memoryMetrics?.averageSuspendedMemory)
    #expect(suspended.sampleCount > 1, "read at the suspension and every 10 s")
    try daemon.ctl(["activate", "demo"])
    try daemon.ctl(["terminate", "demo"])
    let record = try #require(try daemon.waitForRecords(1).first)
    let measured = try #require(record.launchMetrics)
    #expect(measured.suspendedMemory.samples > 1 && measured.suspendedMemory.averageBytes > 0)
    #expect(measured.suspendedMemory.seconds >= 11)
    #expect((measured.bytesWritten ?? 0) > 0)

    let (found, json) = try Self.payload(daemon)
    let payload = try #require(found)
    let average = try #require(payload.memoryMetrics?.averageSuspendedMemory)
    #expect(Self.value(average.averageValue) > 0)
    #expect(average.sampleCount == measured.suspendedMemory.samples)
    #expect(average.standardDeviation >= 0)
    #expect(Self.value(payload.diskIOMetrics?.cumulativeLogicalWrites) > 0)
    #expect(Self.value(payload.cpuMetrics?.cumulativeCPUTime) > 0)
    #expect(try SchemaCheck.violations(json, schema: "metrickit-metric-payloads") == "")
    // The schema can fail: a misspelt key of these families is caught.
    for (key, typo) in [("cumulativeLogicalWrites", "cumulativeLogicalWrite"), ("sampleCount", "samplesCount")] {
      let misspelt = json.replacingOccurrences(of: key, with: typo)
      #expect(try SchemaCheck.violations(misspelt, schema: "metrickit-metric-payloads").contains(typo))
    }
  }
}
