import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
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
  .timeLimit(.minutes(3)), .offThePool)
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

  @Test(
    "jetsam_kills_total counts jetsam's own kills, never a terminate or a kill --reason; records say who ended each")
  func jetsamKillsAreJetsams() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    // Requests: a kill recorded as a memory-pressure kill, and a graceful terminate.
    try daemon.launch("asked", ["idle"], options: ["--background"])
    try daemon.ctl(["kill", "asked", "--reason", "memoryPressure"])
    _ = try daemon.waitForRecords(1)
    try daemon.launch("ended", ["idle"], options: ["--background"])
    try daemon.ctl(["terminate", "ended"])
    _ = try daemon.waitForRecords(2)
    // Once both exits are counted (a record is on disk a moment before the daemon counts it), no kill is.
    try daemon.waitUntil("both exits counted") {
      let exposition = try daemon.ctl(["metrics", "--prometheus"]).stdout
      return Self.samples(exposition).filter { $0.key.hasPrefix("jetsam_exits_total{") }.values.reduce(0, +) == 2
    }
    #expect(try daemon.jetsamKills().isEmpty, "a request counted as jetsam's kill")
    // jetsam's own: a suspended app under critical pressure, and an app over its memory cap.
    try daemon.launch("victim", ["idle"], options: ["--background"])
    try daemon.ctl(["suspend", "victim"])
    #expect(try daemon.ctl(["pressure", "set", "critical", "--wait"]).status == 0)
    _ = try daemon.waitForRecords(3)
    try daemon.ctl(["pressure", "clear"])
    try daemon.launch("hog", ["alloc", "200", "--hold"], options: ["--memory-limit", "32M"])
    _ = try daemon.waitForRecords(4)
    #expect(try daemon.jetsamKills(once: 2) == [.memoryPressure: 1, .memoryResourceLimit: 1])
    let endedBy = Dictionary(uniqueKeysWithValues: try daemon.recordsOnDisk().map { ($0.app, $0.cause.endedBy) })
    #expect(endedBy == ["asked": .request, "ended": .request, "victim": .jetsam, "hog": .memoryLimit])
  }

  static let promtool = Binaries.packageRoot + "/.build/tools/promtool"

  /// What `promtool check metrics` says of `exposition` (it reads standard input).
  static func promtoolCheck(_ exposition: String) throws -> CommandResult {
    let file = NSTemporaryDirectory() + "jetsam-exposition-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).prom"
    try exposition.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    return try runCommand("/bin/sh", ["-c", #""$0" check metrics < "$1""#, promtool, file])
  }

  /// A histogram's cumulative bucket counts in the order of their bounds, `+Inf` last.
  static func latencyBuckets(_ samples: [String: Double], _ name: String) -> [Double] {
    samples.filter { $0.key.hasPrefix(name + "_bucket{") }.map { (key, value) -> (Double, Double) in
      let bound = key.split(separator: "\"")[1]
      return (bound == "+Inf" ? .infinity : Double(bound) ?? 0, value)
    }.sorted { $0.0 < $1.0 }.map(\.1)
  }

  /// The samples of an exposition: `name{labels}` → value.
  static func samples(_ exposition: String) -> [String: Double] {
    var samples: [String: Double] = [:]
    for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
      samples[String(line[..<space])] = value
    }
    return samples
  }

  @Test(
    "the Prometheus exposition passes promtool, and its series equal the daemon's state and the exit records",
    .enabled(if: FileManager.default.isExecutableFile(atPath: promtool), "needs promtool (make test fetches it)"))
  func prometheusExposition() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("crasher", ["crash", "segv"])
    _ = try daemon.waitForRecords(1)
    try daemon.launch("worker", ["idle"], options: ["--background"])
    try daemon.ctl(["kill", "worker", "--reason", "appWatchdog"])
    _ = try daemon.waitForRecords(2)
    try daemon.launch("sleeper", ["idle"], options: ["--background"])
    try daemon.ctl(["suspend", "sleeper"])
    try daemon.ctl(["kill", "sleeper", "--reason", "memoryPressure"])
    _ = try daemon.waitForRecords(3)
    try daemon.launch("mail", ["alloc", "32", "--hold"])
    try daemon.launch("maps", ["idle"], options: ["--background"])
    try daemon.ctl(["suspend", "maps"])
    try daemon.waitUntil("mail's memory") { try daemon.apps()["mail"]?.measured.memoryBytes ?? 0 > 30 << 20 }

    let result = try daemon.ctl(["metrics", "--prometheus"])
    #expect(result.status == 0, "\(result.stderr)")
    let check = try Self.promtoolCheck(result.stdout)
    #expect(check.status == 0 && check.stdout.isEmpty, "promtool: \(check.stdout)\(check.stderr)\n\(result.stdout)")
    let samples = Self.samples(result.stdout)
    // Exits: one series per app, reason and state, as many as the records say.
    let records = try daemon.recordsOnDisk()
    #expect(records.count == 3)
    for record in records {
      let key =
        #"jetsam_exits_total{app="\#(record.app)",reason="\#(record.cause.reason.rawValue)",state="\#(record.lifecycle.state)"}"#
      #expect(samples[key] == 1, "\(key) in \(result.stdout)")
    }
    #expect(samples.keys.filter { $0.hasPrefix("jetsam_exits_total{") }.count == 3)
    // Both kills were requests (kill --reason): none of them is jetsam's.
    #expect(records.allSatisfy { $0.cause.endedBy != .jetsam })
    #expect(!samples.keys.contains { $0.hasPrefix("jetsam_kills_total{") }, "a requested kill counted as jetsam's")
    #expect(samples["jetsam_exit_records_written_total"] == 3)
    // Gauges: what ps and pressure say now.
    let apps = try daemon.apps()
    #expect(samples[#"jetsam_apps{state="foreground"}"#] == 1 && samples[#"jetsam_apps{state="suspended"}"#] == 1)
    #expect(samples[#"jetsam_app_memory_bytes{app="mail"}"#] ?? 0 > 30 * 1024 * 1024)
    #expect(
      abs((samples[#"jetsam_app_memory_bytes{app="mail"}"#] ?? 0) - Double(apps["mail"]!.measured.memoryBytes))
        < Double(4 << 20)
    )
    #expect(samples[#"jetsam_app_cpu_seconds_total{app="mail"}"#] != nil)
    let pressure = try daemon.ctlJSON(PressureInfo.self, ["pressure"])
    #expect(samples["jetsam_device_ram_bytes"] == Double(pressure.ramBytes))
    #expect(samples["jetsam_pressure_level"] == 0)
    #expect(samples.keys.contains { $0.hasPrefix("jetsam_info{version=") })
    // No pressure kill yet: the histograms are there, empty.
    #expect(
      samples["jetsam_kill_latency_seconds_count"] == 0
        && samples[#"jetsam_kill_latency_seconds_bucket{le="+Inf"}"#] == 0)
    // A forced critical level: jetsam kills in every band, each kill timed from the observation to its SIGKILL, and
    // to the process's exit.
    try daemon.ctl(["pressure", "set", "critical", "--wait"])
    let after = Self.samples(try daemon.ctl(["metrics", "--prometheus"]).stdout)
    let killed = try daemon.recordsOnDisk().count - 3
    #expect(killed >= 2)
    #expect(after["jetsam_kill_latency_seconds_count"] == Double(killed), "\(after)")
    #expect(after["jetsam_memory_back_seconds_count"] == Double(killed))
    #expect(after["jetsam_kill_latency_seconds_sum"] ?? -1 >= 0 && after["jetsam_kill_latency_seconds_sum"] ?? 99 < 5)
    let buckets = Self.latencyBuckets(after, "jetsam_kill_latency_seconds")
    #expect(buckets == buckets.sorted() && buckets.last == Double(killed), "\(buckets)")
    #expect(try Self.promtoolCheck(try daemon.ctl(["metrics", "--prometheus"]).stdout).status == 0)
    try daemon.ctl(["pressure", "clear"])
    // promtool can fail: a counter without _total is caught.
    let broken = result.stdout.replacingOccurrences(
      of: "jetsam_exit_records_written_total", with: "jetsam_exit_records")
    let refused = try Self.promtoolCheck(broken)
    #expect(
      refused.status != 0 && (refused.stdout + refused.stderr).contains("counter metrics should have \"_total\" suffix")
    )
    // A request that mixes the formats is refused, naming the field.
    let mixed = try daemon.ctl(["metrics", "--prometheus", "--app", "mail"])
    #expect(mixed.status == 64)
  }

  static let nodeExporter = Binaries.packageRoot + "/.build/tools/node_exporter"

  /// The run whose series a scrape checks: a crash in the foreground, a memory-pressure kill while suspended, and
  /// a running app holding 16 MB ("mail"); its two exit records.
  static func scriptedRun(_ daemon: DaemonHarness) throws -> [ExitRecord] {
    try daemon.launch("crasher", ["crash", "segv"])
    try daemon.launch("sleeper", ["idle"], options: ["--background"])
    try daemon.ctl(["suspend", "sleeper"])
    try daemon.ctl(["kill", "sleeper", "--reason", "memoryPressure"])
    try daemon.launch("mail", ["alloc", "16", "--hold"])
    return try daemon.waitForRecords(2)
  }

  /// A TCP port on the loopback interface that was free a moment ago.
  static func freeLoopbackPort() throws -> Int { Int(try LoopbackListener.freePort()) }

  /// GETs `url` (python3's urllib); nil while nothing answers.
  static func fetch(_ url: String) throws -> String? {
    let result = try runCommand(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
        url,
      ])
    return result.status == 0 ? result.stdout : nil
  }

  @Test(
    "the textfile, readable by all, scraped through a real node_exporter, equals the state and the records",
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: nodeExporter), "needs node_exporter (make test fetches it)"))
  func textfileThroughNodeExporter() throws {
    let directory = NSTemporaryDirectory() + "jetsam-textfile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let textfile = directory + "/metrics/jetsam.prom"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let daemon = try DaemonHarness(
      config: #"{ suspend: { backgroundGrace: null }, metrics: { textfile: "\#(textfile)", interval: "1s" } }"#)
    defer { daemon.stop() }
    let records = try Self.scriptedRun(daemon)
    try daemon.waitUntil("the textfile to count both records") {
      ((try? String(contentsOfFile: textfile, encoding: .utf8)) ?? "").contains("jetsam_exit_records_written_total 2")
    }
    // Readable by others whatever jetsamd's umask (node_exporter runs as its own user).
    var st = stat()
    #expect(stat(textfile, &st) == 0 && st.st_mode & 0o777 == 0o644)
    #expect(stat(directory + "/metrics", &st) == 0 && st.st_mode & 0o777 == 0o755)

    let port = try Self.freeLoopbackPort()
    let exporter = try ChildProcess(
      Self.nodeExporter,
      [
        "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
        "--collector.textfile.directory=\(directory)/metrics",
      ])
    defer { exporter.stop() }
    var scraped = ""
    try daemon.waitUntil("node_exporter to answer on port \(port)") {
      scraped = try Self.fetch("http://127.0.0.1:\(port)/metrics") ?? ""
      return scraped.contains("jetsam_exit_records_written_total")
    }
    let samples = Self.samples(scraped)
    #expect(samples["node_textfile_scrape_error"] == 0, "\(scraped)")
    for record in records {
      let key =
        #"jetsam_exits_total{app="\#(record.app)",reason="\#(record.cause.reason.rawValue)",state="\#(record.lifecycle.state)"}"#
      #expect(samples[key] == 1, "\(key) in \(scraped)")
    }
    #expect(samples["jetsam_exit_records_written_total"] == 2)
    #expect(samples[#"jetsam_apps{state="foreground"}"#] == 1)
    #expect(samples[#"jetsam_app_memory_bytes{app="mail"}"#] ?? 0 > 0)
  }
}
