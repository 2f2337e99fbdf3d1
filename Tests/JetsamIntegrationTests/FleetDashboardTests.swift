import Foundation
import JetsamCore
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The fleet dashboard (`dashboards/jetsam-fleet.json`, README "A fleet dashboard"): a Grafana JSON model whose
/// every panel query parses and returns data per host against a real Prometheus scraping two real jetsamd. Grafana
/// itself is not installable here, so its model is checked for what Grafana needs of it, and its queries where they
/// run.
@Suite("Fleet dashboard", .timeLimit(.minutes(4)), .offThePool)
struct FleetDashboardTests {
  @Test("the JSON model: unique panel ids, each with a title, a unit, a place, the datasource variable and a query")
  func model() throws {
    let dashboard = try FleetDashboard()
    let schemaVersion = try #require(dashboard.model["schemaVersion"] as? Int)
    // Grafana 9.0 wrote 36, 10.4 writes 39: an import into either needs no migration of the panels' options.
    #expect((36...39).contains(schemaVersion), "schemaVersion \(schemaVersion)")
    #expect(dashboard.model["uid"] as? String == "jetsam-fleet" && dashboard.model["title"] as? String != nil)

    let variables = Dictionary(
      dashboard.variables.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    let datasource = try #require(variables["datasource"], "a datasource variable, so that any Prometheus will do")
    #expect(datasource["type"] as? String == "datasource" && datasource["query"] as? String == "prometheus")
    let instance = try #require(variables["instance"], "an instance variable: the hosts")
    #expect(instance["multi"] as? Bool == true && instance["includeAll"] as? Bool == true)
    #expect(instance["type"] as? String == "query")
    #expect(FleetDashboard.query(of: instance) == "label_values(jetsam_info, instance)")
    #expect(Self.usesTheVariable(instance["datasource"]), "the instance variable asks the chosen Prometheus")

    let panels = dashboard.panels
    #expect(panels.count >= 5)
    let ids = panels.compactMap { $0["id"] as? Int }
    #expect(ids.count == panels.count && Set(ids).count == ids.count, "unique panel ids: \(ids)")
    for panel in panels {
      let title = panel["title"] as? String ?? ""
      #expect(!title.isEmpty, "a panel without a title: \(panel)")
      #expect(!(panel["description"] as? String ?? "").isEmpty, "\(title): says what it shows")
      #expect(Self.usesTheVariable(panel["datasource"]), "\(title): its datasource is ${datasource}")
      let defaults = (panel["fieldConfig"] as? [String: Any])?["defaults"] as? [String: Any]
      #expect(defaults?["unit"] as? String != nil, "\(title): a unit")
      let place = panel["gridPos"] as? [String: Int] ?? [:]
      #expect(["x", "y", "w", "h"].allSatisfy { place[$0] != nil }, "\(title): gridPos \(place)")
      #expect((place["x"] ?? 99) + (place["w"] ?? 99) <= 24 && (place["h"] ?? 0) > 0, "\(title): within the grid")
      let targets = panel["targets"] as? [[String: Any]] ?? []
      #expect(!targets.isEmpty, "\(title): no query")
      let refIds = targets.compactMap { $0["refId"] as? String }
      #expect(refIds.count == targets.count && Set(refIds).count == refIds.count, "\(title): refIds \(refIds)")
      for target in targets {
        let expr = target["expr"] as? String ?? ""
        // Every query follows the host picker, and its legend names the host.
        #expect(expr.contains(#"instance=~"$instance""#), "\(title): \(expr)")
        #expect((target["legendFormat"] as? String ?? "").contains("{{instance}}"), "\(title): legend")
        #expect(Self.usesTheVariable(target["datasource"]), "\(title): the target's datasource")
      }
    }
    // No two panels overlap on the grid.
    let rectangles = panels.compactMap { $0["gridPos"] as? [String: Int] }
    for (i, a) in rectangles.enumerated() {
      for b in rectangles[(i + 1)...] {
        let apart =
          a["x"]! + a["w"]! <= b["x"]! || b["x"]! + b["w"]! <= a["x"]! || a["y"]! + a["h"]! <= b["y"]!
          || b["y"]! + b["h"]! <= a["y"]!
        #expect(apart, "overlapping panels at \(a) and \(b)")
      }
    }
  }

  /// Whether a datasource reference is the dashboard's `datasource` variable (so that an import picks one).
  static func usesTheVariable(_ reference: Any?) -> Bool {
    guard let reference = reference as? [String: Any] else { return false }
    return reference["type"] as? String == "prometheus" && reference["uid"] as? String == "${datasource}"
  }

  @Test(
    "every panel query parses and returns data for each of two hosts, scraped by a real Prometheus",
    .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
    .enabled(if: PrometheusServer.isInstalled, "needs prometheus (scripts/install-deps.sh test fetches it)"))
  func queriesAgainstTwoHosts() throws {
    let dashboard = try FleetDashboard()
    let targets = dashboard.targets
    #expect(targets.count >= 5)

    var hosts: [(daemon: DaemonHarness, instance: String)] = []
    defer { for host in hosts { host.daemon.stop() } }
    for _ in 0..<2 {
      let port = try MetricsIntegrationTests.freeLoopbackPort()
      // Lifecycle rules ten times faster, so that a relaunch's verdict comes in seconds; suspension on request only.
      let config =
        "{ timeScale: \(TestTiming.timeScale(0.1)), suspend: { backgroundGrace: null }, "
        + #"metrics: { listen: "127.0.0.1:\#(port)" } }"#
      hosts.append((try DaemonHarness(config: config), "127.0.0.1:\(port)"))
    }
    let instances = hosts.map(\.instance)
    let prometheus = try PrometheusServer(job: "jetsam", targets: instances)
    defer { prometheus.stop() }
    // Scraped from before anything happens: the histograms' zero buckets are in Prometheus before the kills, so that
    // rate() sees each kill.
    try waitUntil("Prometheus to scrape both jetsamd", timeout: .seconds(60), interval: .milliseconds(250)) {
      Set(try Self.series(prometheus, #"up{job="jetsam"} == 1"#).compactMap { $0.labels["instance"] })
        == Set(instances)
    }
    // The host picker's values: both hosts.
    let variable = try #require(dashboard.variables.first { $0["name"] as? String == "instance" })
    let values = try prometheus.get("/api/v1/label/instance/values", [("match[]", "jetsam_info")])
    #expect(Set(values?["data"] as? [String] ?? []) == Set(instances), "\(String(describing: values))")
    #expect(FleetDashboard.query(of: variable) == "label_values(jetsam_info, instance)")
    let allValue = try #require(variable["allValue"] as? String)

    for host in hosts { try Self.giveEveryPanelSomething(host.daemon) }

    for target in targets {
      // All hosts picked: each host has data in the panel (the same story was played on both).
      let all = FleetDashboard.substituted(target.expr, instances: instances)
      #expect(!all.contains("$"), "a Grafana variable the test does not know: \(all)")
      var found: [(labels: [String: String], value: Double)] = []
      try waitUntil(
        "data from both hosts for \(target) (as sent: \(all)); last answer: \(found)", timeout: .seconds(90),
        interval: .milliseconds(500)
      ) {
        found = try Self.series(prometheus, all)
        let finite = found.filter { $0.value.isFinite }
        guard Set(finite.compactMap { $0.labels["instance"] }) == Set(instances) else { return false }
        // A counting panel shows each host's kill or verdict as at least one, though its series was born at 1 (the
        // count increase() alone never sees: it would show 0).
        guard target.expr.contains("increase(") else { return true }
        return instances.allSatisfy { instance in
          finite.filter { $0.labels["instance"] == instance }.map(\.value).reduce(0, +) >= 0.9
        }
      }
      // One host picked: only that host's series.
      let one = FleetDashboard.substituted(target.expr, instances: [instances[0]])
      let only = try Self.series(prometheus, one)
      #expect(!only.isEmpty && only.allSatisfy { $0.labels["instance"] == instances[0] }, "\(target): \(only)")
      // All picked: the variable's allValue, both hosts.
      let every = FleetDashboard.substituted(target.expr, instanceRegex: allValue)
      let everyHost = Set(try Self.series(prometheus, every).compactMap { $0.labels["instance"] })
      #expect(everyHost == Set(instances), "\(target) with All: \(everyHost)")
      // What each panel shows is what was played: a memory-pressure kill of the suspended demo app, its verdict.
      if target.expr.contains("jetsam_kills_total") {
        #expect(found.contains { $0.labels["reason"] == "memoryPressure" }, "\(found)")
      }
      if target.expr.contains("jetsam_exits_total") {
        #expect(found.contains { $0.labels["app"] == "demo" && $0.labels["reason"] == "memoryPressure" }, "\(found)")
      }
      if target.expr.contains("jetsam_restoration_verdicts_total") {
        #expect(found.allSatisfy { ["match", "mismatch", "lost", "unsaved"].contains($0.labels["verdict"] ?? "") })
      }
      if target.expr.contains("jetsam_kill_latency_seconds") {
        #expect(found.allSatisfy { !$0.value.isFinite || ($0.value >= 0 && $0.value <= 5) }, "\(found)")
      }
    }
  }

  /// Plays, on one host, what every panel shows: the demo app saves its state in the background, is suspended,
  /// jetsam kills it under a forced urgent level (a kill by reason, an app killed while suspended, a kill latency),
  /// and its relaunch restores (a restoration verdict).
  static func giveEveryPanelSomething(_ daemon: DaemonHarness) throws {
    let launch = try daemon.ctl(["launch", "demo", "--", Binaries.current.demoApp, "--state-dir", daemon.directory])
    #expect(launch.status == 0, "\(launch.stderr)")
    try daemon.waitUntil("demo to become active") { try daemon.apps()["demo"]?.status.state == .foregroundActive }
    #expect(try daemon.ctl(["background", "demo"]).status == 0)
    try daemon.waitUntil("demo to save its state at didEnterBackground") {
      try daemon.apps()["demo"]?.status.savedDigest != nil
    }
    #expect(try daemon.ctl(["suspend", "demo"]).status == 0)
    #expect(try daemon.ctl(["pressure", "set", "urgent", "--wait"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(
      record.cause.reason == .memoryPressure && record.lifecycle.state == .suspended && record.cause.endedBy == .jetsam)
    #expect(try daemon.ctl(["pressure", "clear"]).status == 0)
    #expect(try daemon.ctl(["activate", "demo"]).status == 0)
    try daemon.waitUntil("demo's relaunch to get its verdict", timeout: 30) {
      let info = try daemon.apps()["demo"]
      return info?.status.launch == 2 && info?.status.restoration != nil && info?.status.restoration != .pending
    }
  }

  /// An instant query's series (labels, value); a query Prometheus refuses (it does not parse, or names what
  /// PromQL has not) throws with Prometheus' reason: waiting longer would not help.
  static func series(_ prometheus: PrometheusServer, _ expression: String) throws
    -> [(labels: [String: String], value: Double)]
  {
    guard let answer = try prometheus.query(expression) else { return [] }
    guard answer["status"] as? String == "success" else {
      throw TestKitError("Prometheus refused \(expression): \(answer["errorType"] ?? "") \(answer["error"] ?? "")")
    }
    let result = (answer["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
    return result.compactMap { series in
      guard let labels = series["metric"] as? [String: String], let value = series["value"] as? [Any],
        let text = value.last as? String
      else { return nil }
      // Prometheus writes NaN and ±Inf as words that Double reads.
      return (labels, Double(text) ?? .nan)
    }
  }
}
