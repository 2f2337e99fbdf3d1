import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import Testing

/// Checks jetsamctl's MetricKit-shaped JSON against the schemas in `schemas/` with a real JSON Schema validator
/// (python3-jsonschema, `scripts/check-json-schema.py`).
enum SchemaCheck {
  /// The violations of `json` against `schemas/NAME.schema.json`, one per line (empty when it conforms).
  static func violations(_ json: String, schema name: String) throws -> String {
    let file = NSTemporaryDirectory() + "jetsam-schema-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
    try json.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    let result = try runCommand(
      "/usr/bin/python3",
      [
        Binaries.packageRoot + "/scripts/check-json-schema.py",
        Binaries.packageRoot + "/schemas/\(name).schema.json", file,
      ])
    guard result.status == 0 || result.status == 1 else {
      throw TestKitError("check-json-schema.py failed (\(result.status)): \(result.stderr)")
    }
    return result.stdout + (result.status == 1 && result.stdout.isEmpty ? "invalid" : "")
  }
}

/// `jetsamctl metrics`: MetricKit's exit counts from real exits, matching the exit records exactly.
@Suite(
  "MetricKit-shaped metrics", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)))
struct MetricsIntegrationTests {
  @Test("the exit counts per app and side match the exit records exactly, and conform to the schema")
  func countsMatchRecords() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    // Foreground: a segfault, a clean exit. Background: an exit 3 and a watchdog kill on request. Suspended (counted
    // as background): a memory-pressure kill and a locked-file kill on request.
    try daemon.launch("crasher", ["crash", "segv"])
    _ = try daemon.waitForRecords(1)
    try daemon.launch("crasher", ["exit", "0"])
    _ = try daemon.waitForRecords(2)
    try daemon.launch("worker", ["exit", "3"], options: ["--background"])
    _ = try daemon.waitForRecords(3)
    try daemon.launch("worker", ["idle"], options: ["--background"])
    try daemon.ctl(["kill", "worker", "--reason", "appWatchdog"])
    _ = try daemon.waitForRecords(4)
    for (count, reason) in [(5, "memoryPressure"), (6, "suspendedWithLockedFile")] {
      try daemon.launch("sleeper", ["idle"], options: ["--background"])
      try daemon.ctl(["suspend", "sleeper"])
      try daemon.ctl(["kill", "sleeper", "--reason", reason])
      _ = try daemon.waitForRecords(count)
    }
    let records = try daemon.recordsOnDisk()
    #expect(records.count == 6)

    let json = try daemon.ctl(["--json", "metrics"])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(try SchemaCheck.violations(json.stdout, schema: "metrickit-metric-payloads") == "")
    let payloads = try JSONDecoder().decode([MetricPayload].self, from: Data(json.stdout.utf8))
    #expect(payloads.map(\.metaData.bundleIdentifier) == ["crasher", "sleeper", "worker"])
    // Recount from the records the way MetricKit splits them, and compare every counter.
    var expected: [String: AppExitMetrics] = [:]
    for record in records { expected[record.app, default: AppExitMetrics()].count(record) }
    for payload in payloads {
      #expect(payload.applicationExitMetrics == expected[payload.metaData.bundleIdentifier])
    }
    let crasher = try #require(payloads.first { $0.metaData.bundleIdentifier == "crasher" }).applicationExitMetrics
    #expect(crasher.foregroundExitData.counts == [.badAccess: 1, .normalAppExit: 1])
    let sleeper = try #require(payloads.first { $0.metaData.bundleIdentifier == "sleeper" }).applicationExitMetrics
    #expect(sleeper.backgroundExitData.counts == [.memoryPressure: 1, .suspendedWithLockedFile: 1])
    // MetricKit's own key names, as printed.
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    let exits = try #require(object.last?["applicationExitMetrics"] as? [String: [String: Int]])
    #expect(exits["backgroundExitData"]?["cumulativeAbnormalExitCount"] == 1)
    #expect(exits["backgroundExitData"]?["cumulativeAppWatchdogExitCount"] == 1)
    // The schema can fail: a misspelt MetricKit key is caught.
    let misspelt = json.stdout.replacingOccurrences(
      of: "cumulativeBadAccessExitCount", with: "cumulativeBadAccesExitCount")
    #expect(try SchemaCheck.violations(misspelt, schema: "metrickit-metric-payloads").contains("cumulativeBadAccess"))
    // One app, and a window that leaves every record out.
    let one = try daemon.ctlJSON([MetricPayload].self, ["metrics", "--app", "worker"])
    #expect(one.count == 1 && one[0].applicationExitMetrics.total == 2)
    #expect(try daemon.ctlJSON([MetricPayload].self, ["metrics", "--since", "2999-01-01T00:00:00Z"]).isEmpty)
  }
}
