import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// A real Prometheus server (`.build/tools/prometheus`, taken out of Debian's package by
/// `scripts/install-deps.sh test`) scraping the given targets every second, with its storage in a directory of its
/// own; started and stopped by pid.
final class PrometheusServer {
  static let executable = Binaries.packageRoot + "/.build/tools/prometheus"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  /// Its HTTP API's port on 127.0.0.1.
  let port: Int
  private let directory: String
  private let process: ChildProcess

  /// Starts it scraping `targets` (`host:port`) as job `job`.
  init(job: String, targets: [String]) throws {
    directory = NSTemporaryDirectory() + "jetsam-prometheus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let list = targets.map { "\"\($0)\"" }.joined(separator: ", ")
    // A one-second scrape so that a test waits seconds, not Prometheus' default minute, for its series.
    try """
    global: { scrape_interval: 1s, scrape_timeout: 1s }
    scrape_configs:
      - job_name: \(job)
        static_configs: [ { targets: [\(list)] } ]
    """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
    port = try MetricsIntegrationTests.freeLoopbackPort()
    process = try ChildProcess(
      Self.executable,
      [
        "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
        "--web.listen-address=127.0.0.1:\(port)",
      ])
  }

  /// Stops the server (SIGTERM, then SIGKILL, by pid) and removes its storage.
  func stop() {
    process.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The server's log, for a failure's message.
  var log: String { process.log.text }

  /// GETs `path` of the HTTP API with `parameters` and decodes the JSON answer, an error status's too (a query that
  /// does not parse is answered 400 with `status: "error"` and the reason); nil while the server does not answer,
  /// or answers in plain text (until its storage is ready it says `Service Unavailable`, 503).
  func get(_ path: String, _ parameters: [(String, String)]) throws -> [String: Any]? {
    let script = """
      import json, sys, urllib.error, urllib.parse, urllib.request
      url = sys.argv[1] + "?" + urllib.parse.urlencode([tuple(pair) for pair in json.loads(sys.argv[2])])
      try:
          body = urllib.request.urlopen(url, timeout=5).read()
      except urllib.error.HTTPError as error:
          body = error.read()
      sys.stdout.write(body.decode())
      """
    let pairs = String(decoding: try JSONEncoder().encode(parameters.map { [$0.0, $0.1] }), as: UTF8.self)
    let result = try runCommand("/usr/bin/python3", ["-c", script, "http://127.0.0.1:\(port)\(path)", pairs])
    guard result.status == 0 else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
  }

  /// An instant query at the present moment: Prometheus' answer (`status`, `data.result`, or `error`).
  func query(_ expression: String) throws -> [String: Any]? {
    try get("/api/v1/query", [("query", expression)])
  }
}
