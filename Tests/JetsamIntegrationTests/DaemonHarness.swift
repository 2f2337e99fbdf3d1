import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import Testing

/// A real jetsamd for one test (the kit's ``JetsamdInstance``, `--verbose`), driven the way a user drives it: with
/// jetsamctl. ``stop()`` removes every trace and records what went wrong as issues.
final class DaemonHarness {
  let jetsamd: JetsamdInstance

  /// Starts jetsamd with `config` (JSON5 text; see ``JetsamdConfig/merged(_:directory:cgroupName:)`` for the keys
  /// added) and waits until its control socket answers. `environment` adds variables to jetsamd's own.
  init(config: String = "{}", extraArguments: [String] = [], environment: [String: String] = [:]) throws {
    let id = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    jetsamd = try JetsamdInstance(
      directory: NSTemporaryDirectory() + "jetsam-test-\(id)", cgroupName: "jetsam-test-\(id)", config: config,
      arguments: ["--verbose"] + extraArguments, environment: environment)
  }

  /// The directory holding the config, state and socket (tests put marker files here too).
  var directory: String { jetsamd.directory }
  var cgroupName: String { jetsamd.cgroupName }
  var socket: String { jetsamd.socketPath }
  var stateDirectory: String { jetsamd.stateDirectory }
  /// The daemon's pid.
  var pid: Int32 { jetsamd.pid }
  /// The daemon's log so far (after a restart, both daemons').
  var log: String { jetsamd.logText }
  /// Path of the durable exit record log.
  var recordLogPath: String { jetsamd.recordLogPath }
  /// The daemon's resident memory (VmRSS), in kB.
  var residentKilobytes: Int? { (try? ProcessStatus.read(pid: pid))?.residentBytes.map { Int($0 / 1024) } }

  /// SIGKILLs jetsamd and starts a new one with the same config and state directory, as systemd's Restart= would.
  func restart() throws { try jetsamd.restart() }

  /// SIGKILLs the daemon (its apps keep running, as they would after a crash).
  func crash() { jetsamd.crash() }

  /// Writes `config` as the daemon's (read at its next start or reload).
  func writeConfig(_ config: String) throws {
    try JetsamdConfig.merged(config, directory: directory, cgroupName: cgroupName)
      .write(toFile: jetsamd.configPath, atomically: true, encoding: .utf8)
  }

  /// Writes `config` as the daemon's and sends SIGHUP, as `systemctl reload` does.
  func reload(_ config: String) throws {
    try writeConfig(config)
    kill(pid, SIGHUP)
  }

  /// Stops the daemon gracefully and removes every trace of it; what went wrong becomes an issue of the test.

  func stop() {
    for problem in jetsamd.stop() { Issue.record(Comment(rawValue: problem)) }
  }

  /// Runs jetsamctl against this daemon.
  @discardableResult
  func ctl(_ arguments: [String]) throws -> CommandResult {
    try runCommand(Binaries.current.jetsamctl, ["--socket", socket] + arguments)
  }

  /// setpriv's arguments that run jetsamctl against this daemon as `user` with `group` and no other group: a peer
  /// that is not root.
  func ctlArguments(asUser user: String, group: String, _ arguments: [String]) -> [String] {
    ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", Binaries.current.jetsamctl, "--socket", socket]
      + arguments
  }

  /// Runs jetsamctl against this daemon as `user` with `group` and no other group.
  func ctl(asUser user: String, group: String, _ arguments: [String]) throws -> CommandResult {
    try runCommand("/usr/bin/setpriv", ctlArguments(asUser: user, group: group, arguments))
  }

  /// Runs jetsamctl with --json, requires success, and decodes its output.
  func ctlJSON<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
    let result = try ctl(["--json"] + arguments)
    guard result.status == 0 else {
      throw TestKitError("jetsamctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
    }
    return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
  }

  /// Launches an ad-hoc app running jetsam-testapp with `testappArguments`; returns its pid.
  @discardableResult
  func launch(_ name: String, _ testappArguments: [String], options: [String] = [], executable: String? = nil)
    throws -> Int32
  {
    let info = try ctlJSON(
      AppInfo.self,
      ["launch", name] + options + ["--", executable ?? Binaries.current.testapp] + testappArguments)
    guard let pid = info.status.pid else { throw TestKitError("launch \(name) gave no pid") }
    return pid
  }

  /// The apps as `ps --json` reports them, by name.
  func apps() throws -> [String: AppInfo] {
    Dictionary(uniqueKeysWithValues: try ctlJSON([AppInfo].self, ["ps"]).map { ($0.status.name, $0) })
  }

  /// Exit records as read straight from the durable log file.
  func recordsOnDisk() throws -> [ExitRecord] { jetsamd.exitRecords() }

  /// `jetsam_kills_total` once it counts at least `total` kills (a record is on disk a moment before the daemon
  /// hears it is durable and counts it), by reason.
  func jetsamKills(once total: Double) throws -> [ExitReason: Double] {
    var kills: [ExitReason: Double] = [:]
    try waitUntil("\(total) kill(s) counted in jetsam_kills_total") {
      kills = try jetsamKills()
      return kills.values.reduce(0, +) >= total
    }
    return kills
  }

  /// `jetsam_kills_total` of the Prometheus exposition, by reason: jetsam's own kills counted so far.
  func jetsamKills() throws -> [ExitReason: Double] {
    let exposition = try ctl(["metrics", "--prometheus"])
    guard exposition.status == 0 else { throw TestKitError("jetsamctl metrics --prometheus: \(exposition.stderr)") }
    var kills: [ExitReason: Double] = [:]
    for (series, value) in MetricsIntegrationTests.samples(exposition.stdout)
    where series.hasPrefix("jetsam_kills_total{reason=\"") {
      let reason = series.dropFirst("jetsam_kills_total{reason=\"".count).prefix { $0 != "\"" }
      kills[ExitReason(rawValue: String(reason))!] = value
    }
    return kills
  }

  /// Waits until `condition` holds (polling every 20 ms), failing after `timeout` seconds (stretched by
  /// ``TestTiming/slowdown``) with the daemon's log.
  func waitUntil(_ what: String, timeout: Double = 15, _ condition: () throws -> Bool) throws {
    do {
      try JetsamDaemonProcess.waitUntil(
        what, timeout: .seconds(timeout * TestTiming.slowdown), interval: .milliseconds(20), condition)
    } catch {
      // A timeout or the condition's own error, either with the daemon's side of the story.
      throw TestKitError("\(error)\n--- jetsamd log ---\n\(log)")
    }
  }

  /// Waits for `count` exit records in the log file.
  func waitForRecords(_ count: Int, timeout: Double = 15) throws -> [ExitRecord] {
    var records: [ExitRecord] = []
    try waitUntil("\(count) exit record(s)", timeout: timeout) {
      records = try recordsOnDisk()
      return records.count >= count
    }
    return records
  }
}

extension ControlClient {
  /// Sends one line, well-formed or not, and returns the answer's error code and message (nil code on success).
  func errorFor(_ line: String) throws -> (code: String?, message: String) {
    let response = try send(line: Array((line + "\n").utf8))
    return (response.error?.code.rawValue, response.error?.message ?? "")
  }
}
