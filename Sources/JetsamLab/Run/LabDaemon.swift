import Foundation
import Glibc
import JetsamConfig
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// A failure to set up or run a lab (not an expectation that failed): jetsamd would not start, a request failed.
public struct LabError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The private jetsamd a lab runs against: its own config, state and socket in the run's directory, its own device
/// cgroup, stopped (and its apps with it) when the lab ends, however it ends: at the end of the run, on SIGINT or
/// SIGTERM (``LabInterruption``), and by itself when the lab is killed outright (`--exit-with-parent`).
final class LabDaemon {
  let directory: String
  let socketPath: String
  let logPath: String
  private let process: DaemonProcess

  /// Starts `jetsamd` with the scenario's config (and profile) and waits until it answers.
  init(jetsamd: String, scenario: Scenario, directory: String) throws {
    self.directory = directory
    socketPath = directory + "/run/jetsamd.sock"
    logPath = directory + "/jetsamd.log"
    // Every run starts from a new device: a daemon directory left by an earlier run into the same output (its
    // launch counters, its apps' saved state) would make this run depend on that one.
    if FileManager.default.fileExists(atPath: directory + "/jetsamd.json5") {
      try FileManager.default.removeItem(atPath: directory)
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var profile: [String: JSONTree] = [:]
    if let path = scenario.profile {
      guard let bytes = FileManager.default.contents(atPath: path) else { throw LabError("cannot read \(path)") }
      do {
        profile = try ConfigLoader.json5Object(bytes: Array(bytes), file: lastPathComponent(of: path))
      } catch {
        throw LabError("\(error)")
      }
    }
    let config = Self.config(profile: profile, scenario: scenario.config, directory: directory)
    let configPath = directory + "/jetsamd.json5"
    try Data(JSONTree.object(config).json).write(to: URL(fileURLWithPath: configPath))

    // The lab's daemon is the lab's, not a service of the systemd that may run the lab: it must neither talk to
    // that systemd (READY, STATUS, its descriptor store) nor take the lab service's restart for one of its own
    // (and leave its apps running).
    var environment = ProcessInfo.processInfo.environment
    for name in [
      "NOTIFY_SOCKET", "INVOCATION_ID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID",
    ] {
      environment[name] = nil
    }
    do {
      process = try DaemonProcess(
        executable: jetsamd, arguments: ["--config", configPath, "--foreground", "--exit-with-parent"],
        environment: environment, output: .file(logPath), socket: socketPath)
    } catch {
      throw LabError("\(error)")
    }
    // Stopped on SIGINT and SIGTERM from now on, while it comes up too.
    LabInterruption.daemonStarted(process)
    do {
      try process.waitUntilAnswering(timeout: .seconds(20))
    } catch {
      stop()
      throw LabError("\(error)")
    }
  }

  /// The config a lab's jetsamd runs with in `directory`: the scenario's `config` over its device profile (it is the
  /// more particular of the two), and the lab's own keys over both: this daemon must not share a directory, socket or
  /// cgroup. (ScenarioLoader checks it when it reads the scenario, so that errors name the scenario's keys.)
  static func config(profile: [String: JSONTree], scenario: [String: JSONTree], directory: String) -> [String: JSONTree]
  {
    var config = profile
    ConfigLoader.merge(scenario, into: &config)
    config["stateDirectory"] = .string(directory + "/state")
    config["runtimeDirectory"] = .string(directory + "/run")
    if config["controlGroup"] == nil { config["controlGroup"] = .null }
    var device: [String: JSONTree] = [:]
    if case .object(let given)? = config["device"] { device = given }
    device["cgroupName"] = .string("jetsam-lab-\(getpid())")
    config["device"] = .object(device)
    return config
  }

  /// jetsamd's process ID.
  var pid: Int32 { process.pid }

  /// Stops jetsamd (see ``stopGrace``) and returns once it has ended.
  func stop() {
    LabInterruption.stopDaemon()
  }

  /// How long jetsamd has to end its apps and remove its cgroups before it is killed.
  static let stopGrace = Duration.seconds(30)

  /// The end of jetsamd's log, for errors.
  func logTail() -> String { process.logTail() }
}
