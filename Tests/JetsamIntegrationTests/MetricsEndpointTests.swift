import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// jetsamd's own HTTP endpoint (`metrics.listen`): scraped by a real Prometheus server, refusing what it does not
/// serve, bounded against clients that hold connections, and following the config.
@Suite(
  "Prometheus endpoint", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct MetricsEndpointIntegrationTests {
  static let probe = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/http_probe.py"

  /// A daemon whose config listens on a free loopback port; the port.
  static func daemon(_ config: String = "") throws -> (DaemonHarness, Int) {
    let port = try MetricsIntegrationTests.freeLoopbackPort()
    let daemon = try DaemonHarness(
      config: #"{ suspend: { backgroundGrace: null }, metrics: { listen: "127.0.0.1:\#(port)" }, \#(config) }"#)
    return (daemon, port)
  }

  /// Sends each raw request on its own connection: the status and body of each answer (status 0: none).
  static func send(_ requests: [String], port: Int) throws -> [(status: Int, body: String)] {
    let json = String(decoding: try JSONEncoder().encode(requests), as: UTF8.self)
    let result = try runCommand("/usr/bin/python3", [probe, "requests", String(port), json])
    guard result.status == 0,
      let answers = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
    else { throw TestKitError("http_probe.py: \(result.stdout)\(result.stderr)") }
    return answers.map { ($0["status"] as? Int ?? -1, $0["body"] as? String ?? "") }
  }

  /// What a Prometheus query returns: each series' labels and value.
  static func query(_ prometheusPort: Int, _ expression: String) throws -> [(labels: [String: String], value: Double)] {
    let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
    guard
      let text = try MetricsIntegrationTests.fetch("http://127.0.0.1:\(prometheusPort)/api/v1/query?query=\(encoded)"),
      let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
    else { return [] }
    return result.compactMap { series in
      guard let labels = series["metric"] as? [String: String], let value = series["value"] as? [Any],
        let number = (value.last as? String).flatMap(Double.init)
      else { return nil }
      return (labels, number)
    }
  }

  @Test(
    "a real Prometheus server scrapes /metrics: the target is up, and its series equal the records and the state",
    .enabled(if: PrometheusServer.isInstalled, "needs prometheus (make test fetches it)"))
  func scrapedByPrometheus() throws {
    let (daemon, port) = try Self.daemon()
    defer { daemon.stop() }
    let records = try MetricsIntegrationTests.scriptedRun(daemon)

    // What Prometheus is given is valid exposition text, as promtool reads it.
    let body = try #require(try MetricsIntegrationTests.fetch("http://127.0.0.1:\(port)/metrics"))
    let check = try MetricsIntegrationTests.promtoolCheck(body)
    #expect(check.status == 0 && check.stdout.isEmpty, "promtool: \(check.stdout)\(check.stderr)")

    let server = try PrometheusServer(job: "jetsam", targets: ["127.0.0.1:\(port)"])
    defer { server.stop() }
    let prometheusPort = server.port
    try daemon.waitUntil("Prometheus to scrape jetsamd", timeout: 60) {
      try Self.query(prometheusPort, #"jetsam_exit_records_written_total{job="jetsam"}"#).first?.value == 2
    }
    let up = try Self.query(prometheusPort, #"up{job="jetsam"}"#)
    #expect(up.count == 1 && up.first?.value == 1 && up.first?.labels["instance"] == "127.0.0.1:\(port)")
    let exits = try Self.query(prometheusPort, "jetsam_exits_total")
    #expect(exits.count == records.count, "\(exits)")
    for record in records {
      #expect(
        exits.contains {
          $0.labels["app"] == record.app && $0.labels["reason"] == record.cause.reason.rawValue
            && $0.labels["state"] == record.lifecycle.state.rawValue && $0.value == 1
        }, "\(record.app) \(record.cause.reason) in \(exits)")
    }
    let memory = try Self.query(prometheusPort, #"jetsam_app_memory_bytes{app="mail"}"#)
    #expect(memory.first?.value ?? 0 > Double(8 << 20), "\(memory)")
    #expect(
      try Self.query(prometheusPort, "jetsam_device_ram_bytes").first?.value
        == Double(try daemon.ctlJSON(PressureInfo.self, ["pressure"]).ramBytes))
  }

  @Test("what is not GET /metrics gets the status that says why, and the endpoint goes on serving")
  func refusals() throws {
    let (daemon, port) = try Self.daemon()
    defer { daemon.stop() }
    let answers = try Self.send(
      [
        "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        "HEAD /metrics HTTP/1.0\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET /secret HTTP/1.1\r\n\r\n",
        "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "\u{1}\u{2}garbage\r\n\r\n",
        "GET /metrics HTTP/2.0\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 20000) + "\r\n\r\n",
        // Cut off before its head ended: nobody to answer.
        "GET /metrics HTTP/1.1\r\nHost",
      ], port: port)
    #expect(answers.map(\.status) == [200, 200, 200, 404, 405, 400, 505, 431, 0], "\(answers)")
    #expect(answers[0].body.contains("jetsam_info{"), "\(answers[0].body)")
    #expect(answers[1].body.isEmpty, "HEAD has no body")
    #expect(answers[3].body.contains("/secret") && answers[7].body.contains("8192"))
    // Still serving, and the daemon is whole.
    #expect(try MetricsIntegrationTests.fetch("http://127.0.0.1:\(port)/metrics")?.contains("jetsam_info{") == true)
    #expect(try daemon.ctl(["status"]).status == 0)
  }

  @Test("clients that connect and send nothing get 408 after the read timeout; a scrape past the cap takes a place")
  func heldConnections() throws {
    let (daemon, port) = try Self.daemon()
    defer { daemon.stop() }
    // While 16 connections are held, the control socket answers as ever.
    let result = try runCommand(
      "/usr/bin/python3",
      [
        Self.probe, "hold", String(port), "16", String(daemon.pid), "--", Binaries.current.jetsamctl, "--socket",
        daemon.socket,
        "status",
      ], timeout: .seconds(90))
    let held = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    #expect(held["extra"] as? Int == 200, "\(held)")
    #expect(held["command"] as? Int == 0, "jetsamctl status while the endpoint was full")
    // The oldest, which had not asked, was closed unanswered to admit the scrape.
    #expect((held["held"] as? [Int]) == [0] + Array(repeating: 408, count: 15), "\(held)")
    #expect((held["heldSeconds"] as? Double ?? 0) >= 4, "cut off only after the read timeout (5 s)")
    // Once they are gone, the endpoint serves again.
    try daemon.waitUntil("the endpoint to serve again") {
      try MetricsIntegrationTests.fetch("http://127.0.0.1:\(port)/metrics")?.contains("jetsam_info{") == true
    }
  }

  @Test("16 slow clients that keep every slot taken do not keep a scraper out: each scrape is answered")
  func slowClients() throws {
    let (daemon, port) = try Self.daemon()
    defer { daemon.stop() }
    let result = try runCommand(
      "/usr/bin/python3", [Self.probe, "slow", String(port), "16", String(daemon.pid), "20"], timeout: .seconds(120))
    let slow = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    #expect((slow["scrapes"] as? [Int]) == Array(repeating: 200, count: 20), "\(slow)")
    // Each scrape took a slow client's slot (the slow one was closed and came back).
    #expect((slow["replaced"] as? Int ?? 0) >= 10, "\(slow)")
  }

  @Test("an address in use is taken once freed; a reload moves the listener, or ends it")
  func followsTheConfig() throws {
    // Something else holds the port: jetsamd starts and serves its control socket all the same.
    let port = try MetricsIntegrationTests.freeLoopbackPort()
    let holder = try ChildProcess(
      "/usr/bin/python3",
      [
        "-c",
        "import socket, sys, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
          + "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); print('bound', flush=True); time.sleep(600)",
        String(port),
      ])
    defer { holder.stop() }
    try waitUntil("the holder to bind", timeout: .seconds(10)) { holder.log.text.contains("bound") }
    let config = #"{ suspend: { backgroundGrace: null }, metrics: { listen: "127.0.0.1:\#(port)" } }"#
    let daemon = try DaemonHarness(config: config)
    defer { daemon.stop() }
    #expect(try daemon.ctl(["status"]).status == 0)
    try daemon.waitUntil("jetsamd to say the port is taken") {
      daemon.log.contains("cannot listen on 127.0.0.1:\(port)")
    }
    holder.stop()
    // Tried again every 10 s.
    try daemon.waitUntil("jetsamd to take the port once free", timeout: 30) {
      try MetricsIntegrationTests.fetch("http://127.0.0.1:\(port)/metrics")?.contains("jetsam_info{") == true
    }

    // A reload to another port: the old one is closed, the new one serves.
    let other = try MetricsIntegrationTests.freeLoopbackPort()
    try daemon.reload(#"{ suspend: { backgroundGrace: null }, metrics: { listen: "[::1]:\#(other)" } }"#)
    try daemon.waitUntil("the listener to move to [::1]:\(other)") {
      try MetricsIntegrationTests.fetch("http://[::1]:\(other)/metrics")?.contains("jetsam_info{") == true
    }
    #expect(!Self.accepts(port: port), "the old port is closed")
    // A reload without it: nothing listens.
    try daemon.reload(#"{ suspend: { backgroundGrace: null } }"#)
    try daemon.waitUntil("the listener to close") { !Self.accepts(port: other, host: "::1") }
    #expect(try daemon.ctl(["status"]).status == 0)
  }

  /// Whether something accepts TCP connections on `host`:`port`.
  static func accepts(port: Int, host: String = "127.0.0.1") -> Bool {
    let result = try? runCommand(
      "/usr/bin/python3",
      [
        "-c", "import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)", host,
        String(port),
      ])
    return result?.status == 0
  }
}
