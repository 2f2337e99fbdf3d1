import Foundation
import Glibc
import JetsamConfig
import JetsamControlClient
import JetsamCore
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
  private let process = Process()

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

    guard FileManager.default.createFile(atPath: logPath, contents: nil),
      let log = FileHandle(forWritingAtPath: logPath)
    else { throw LabError("cannot create \(logPath)") }
    process.executableURL = URL(fileURLWithPath: jetsamd)
    process.arguments = ["--config", configPath, "--foreground", "--exit-with-parent"]
    // The lab's daemon is the lab's, not a service of the systemd that may run the lab: it must neither talk to
    // that systemd (READY, STATUS, its descriptor store) nor take the lab service's restart for one of its own
    // (and leave its apps running).
    var environment = ProcessInfo.processInfo.environment
    for name in [
      "NOTIFY_SOCKET", "INVOCATION_ID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID",
    ] {
      environment[name] = nil
    }
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = log
    process.standardError = log
    do {
      try process.run()
    } catch {
      throw LabError("cannot start \(jetsamd): \(error)")
    }
    do {
      // Opened at once, before it can be reaped: a pidfd cannot signal another process that took its pid later.
      LabInterruption.daemonStarted(try openPidfd(pid: process.processIdentifier))
    } catch {
      throw LabError("jetsamd exited at once (\(error)):\n\(logTail())")
    }
    let deadline = Date(timeIntervalSinceNow: 20)
    while (try? ControlClient(path: socketPath).send(ControlRequest(verb: .status)).ok) != true {
      guard process.isRunning else {
        throw LabError("jetsamd exited during start-up (status \(process.terminationStatus)):\n\(logTail())")
      }
      guard Date() < deadline else {
        stop()
        throw LabError("jetsamd did not answer on \(socketPath) within 20 s:\n\(logTail())")
      }
      usleep(20_000)
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
  var pid: Int32 { process.processIdentifier }

  /// Stops jetsamd and returns once it has ended (see ``stop(pidfd:)``).
  func stop() {
    LabInterruption.stopDaemon()
    process.waitUntilExit()
  }

  /// How long jetsamd has to end its apps and remove its cgroups before it is killed.
  static let stopGrace: Int32 = 30_000

  /// Stops the jetsamd of `pidfd`: SIGTERM (it ends its apps and removes its cgroups), SIGKILL after
  /// ``stopGrace`` milliseconds; returns once it has ended.
  static func stop(pidfd: FileDescriptor) {
    try? sendSignal(pidfd: pidfd, .terminate)
    if !waitForEnd(of: pidfd, milliseconds: stopGrace) {
      try? sendSignal(pidfd: pidfd, .kill)
      _ = waitForEnd(of: pidfd, milliseconds: -1)
    }
  }

  /// Whether the process of `pidfd` ended within `milliseconds` (-1: no limit); a pidfd polls readable once it has.
  private static func waitForEnd(of pidfd: FileDescriptor, milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, milliseconds)
      if ready >= 0 || errno != EINTR { return ready > 0 }
    }
  }

  /// The end of jetsamd's log, for errors.
  func logTail() -> String {
    let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(20).joined(separator: "\n")
  }
}
