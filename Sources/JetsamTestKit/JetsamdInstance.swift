import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// A real jetsamd for a test or the bench: its own config, state and runtime directories, control socket and
/// device cgroup, its stdout and stderr in a ``LineLog``.
///
/// On pure cgroup v2 it starts in a cgroup of its own, `/sys/fs/cgroup/<cgroup name>.service`, as systemd starts a
/// service with `Delegate=yes`; on the hybrid layout, where the test or the bench runs.
///
/// It runs as a ``DaemonProcess``, as a lab's jetsamd does. ``stop()`` ends it through its pidfd (SIGTERM, SIGKILL
/// after 20 s) and removes every trace: apps it left behind (killed by
/// pid through their cgroups), the cgroups, the directory. A ``CleanupRegistry`` entry does the same should the
/// run end first.
public final class JetsamdInstance: @unchecked Sendable {
  /// The programs: jetsamd itself, and the apps' binaries for callers.
  public let binaries: Binaries
  /// The directory holding the config, `state/` and `run/`; removed by ``stop()``.
  public let directory: String
  /// The device cgroup's name (`device.cgroupName`).
  public let cgroupName: String
  /// Arguments after `--config PATH --foreground`.
  public let arguments: [String]
  /// Variables added to the daemon's environment (e.g. a NOTIFY_SOCKET standing in for systemd's).
  public let environment: [String: String]
  /// On pure cgroup v2, the cgroup the daemon was started in; `nil` on the hybrid layout.
  public private(set) var serviceCgroup: String?
  /// The status jetsamd answered when it came up (its device cgroup, cgroup and suspend modes).
  public private(set) var status: StatusInfo
  /// The running daemon (a new one after ``restart()``).
  public private(set) var process: DaemonProcess
  private let realTimeLog: Bool
  private var earlierLogs: [String] = []
  private var cleanupID: Int?

  /// Writes the config and starts jetsamd, then waits until its control socket answers.
  ///
  /// - Parameters:
  ///   - binaries: where jetsamd is.
  ///   - directory: created, and removed again by ``stop()``.
  ///   - cgroupName: the device cgroup's name, unique to the caller.
  ///   - config: a JSON5 object; see ``JetsamdConfig/merged(_:directory:cgroupName:)`` for what is added.
  ///   - arguments: more command-line arguments (`--verbose`).
  ///   - environment: variables added to the daemon's environment.
  ///   - realTimeLog: read the daemon's output at ``ObserverPriority`` (the bench).
  /// - Throws: ``TestKitError`` when jetsamd exits or does not answer within 20 s (with its output); everything
  ///   made so far is removed first.
  public init(
    binaries: Binaries = .current, directory: String, cgroupName: String, config: String = "{}",
    arguments: [String] = [], environment: [String: String] = [:], realTimeLog: Bool = false
  ) throws {
    self.binaries = binaries
    self.directory = directory
    self.cgroupName = cgroupName
    self.arguments = arguments
    self.environment = environment
    self.realTimeLog = realTimeLog
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try JetsamdConfig.merged(config, directory: directory, cgroupName: cgroupName)
      .write(toFile: directory + "/jetsamd.json5", atomically: true, encoding: .utf8)
    let service = CgroupHost.isPureV2 ? CgroupHost.root + "/\(cgroupName).service" : nil
    let started: (DaemonProcess, StatusInfo)
    do {
      started = try Self.start(
        binaries: binaries, arguments: Self.commandLine(directory: directory, arguments), environment: environment,
        service: service, socket: directory + "/run/jetsamd.sock", realTimeLog: realTimeLog)
    } catch {
      _ = Self.removeTraces(directory: directory, cgroupName: cgroupName, service: service)
      throw error
    }
    (process, status) = started
    serviceCgroup = service
    cleanupID = CleanupRegistry.shared.add { [self] in _ = stopAndRemove() }
  }

  /// The config file.
  public var configPath: String { directory + "/jetsamd.json5" }
  /// The control socket.
  public var socketPath: String { directory + "/run/jetsamd.sock" }
  /// The state directory (record log, state file, app logs).
  public var stateDirectory: String { directory + "/state" }
  /// The durable exit record log.
  public var recordLogPath: String { stateDirectory + "/exits.jsonl" }
  /// The daemon's pid.
  public var pid: Int32 { process.pid }
  /// The running daemon's output, line by line with arrival times (always read into lines: see ``start``).
  public var log: LineLog { process.lines! }
  /// Everything every daemon started here wrote so far (after a ``restart()``, both).
  public var logText: String { (earlierLogs + [process.logText]).joined(separator: "\n") }

  /// A new connection to the control socket.
  public func client() throws -> ControlClient { try ControlClient(path: socketPath) }

  /// The exit records in the durable log, as read from the file (a torn last line is left out).
  public func exitRecords() -> [ExitRecord] {
    guard let text = try? readTextFile(recordLogPath) else { return [] }
    let decoder = JSONDecoder()
    return text.split(separator: "\n").compactMap { try? decoder.decode(ExitRecord.self, from: Data($0.utf8)) }
  }

  /// SIGKILLs the daemon by pid; its apps keep running, as after a crash.
  public func crash() {
    process.stop(signal: SIGKILL, grace: .seconds(5))
  }

  /// SIGKILLs the daemon and starts a new one with the same config and state directory (in the same service cgroup
  /// on pure v2), as systemd's `Restart=` would; waits until it answers.
  ///
  /// - Throws: ``TestKitError`` as ``init(binaries:directory:cgroupName:config:arguments:realTimeLog:)``; the
  ///   daemon's traces stay for ``stop()``.
  public func restart() throws {
    crash()
    try startAgain()
  }

  /// Stops the daemon as systemd's stop does (SIGTERM), keeping its state and runtime directories for
  /// ``startAgain()``; returns its exit status, nil if it did not exit within `grace` seconds (it is then killed).
  public func terminate(grace: Double = 30) -> Int32? {
    process.stop(signal: SIGTERM, grace: .milliseconds(Int64(grace * 1000))) ? process.terminationStatus : nil
  }

  /// Starts a new daemon with the same config and state directory after ``terminate(grace:)`` or ``crash()``;
  /// waits until it answers.
  public func startAgain() throws {
    earlierLogs.append(process.logText)
    (process, status) = try Self.start(
      binaries: binaries, arguments: Self.commandLine(directory: directory, arguments), environment: environment,
      service: serviceCgroup, socket: socketPath, realTimeLog: realTimeLog)
  }

  /// Stops the daemon gracefully (SIGTERM; SIGKILL after 20 s), then removes every trace of it; safe to call twice.
  ///
  /// - Returns: what went wrong, for the caller to report: a daemon that needed the SIGKILL, a cgroup that could not
  ///   be removed. Empty when all went well.
  @discardableResult
  public func stop() -> [String] {
    if let cleanupID { CleanupRegistry.shared.remove(cleanupID) }
    cleanupID = nil
    return stopAndRemove()
  }

  private func stopAndRemove() -> [String] {
    var problems: [String] = []
    if !process.stop(signal: SIGTERM, grace: .seconds(20)) {
      problems.append("jetsamd did not stop within 20 s of SIGTERM")
    }
    return problems + Self.removeTraces(directory: directory, cgroupName: cgroupName, service: serviceCgroup)
  }

  private static func commandLine(directory: String, _ arguments: [String]) -> [String] {
    ["--config", directory + "/jetsamd.json5", "--foreground"] + arguments
  }

  /// Starts jetsamd (inside `service` on pure v2) and waits until `socket` answers a status request.
  private static func start(
    binaries: Binaries, arguments: [String], environment: [String: String], service: String?, socket: String,
    realTimeLog: Bool
  ) throws -> (DaemonProcess, StatusInfo) {
    let process: DaemonProcess
    let environment =
      environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
    do {
      if let service {
        if access(service, F_OK) != 0 { try systemCall("mkdir \(service)") { mkdir(service, 0o755) } }
        // Join the service cgroup before exec, so that the daemon never runs anywhere else.
        process = try DaemonProcess(
          executable: "/bin/sh",
          arguments: ["-c", "echo 0 > \"$0/cgroup.procs\" && exec \"$@\"", placement(in: service), binaries.jetsamd]
            + arguments, environment: environment, output: .lines(realTime: realTimeLog), socket: socket)
      } else {
        process = try DaemonProcess(
          executable: binaries.jetsamd, arguments: arguments, environment: environment,
          output: .lines(realTime: realTimeLog), socket: socket)
      }
    } catch let error as DaemonProcessError {
      throw TestKitError("\(error)")
    }
    // Killed should the run end while it comes up; the instance's own entry takes over once it has.
    let cleanupID = CleanupRegistry.shared.add { _ = process.stop(signal: SIGKILL, grace: .zero) }
    defer { CleanupRegistry.shared.remove(cleanupID) }
    do {
      return (process, try process.waitUntilAnswering(timeout: .seconds(20)))
    } catch {
      process.stop(signal: SIGKILL, grace: .seconds(5))
      throw TestKitError("\(error)\n--- its whole output ---\n\(process.logText)")
    }
  }

  /// Where a (re)started daemon goes on pure v2. Once the first jetsamd has enabled controllers below the service
  /// cgroup, nothing may join the service cgroup itself while apps live below it: systemd ≥ 254 starts the
  /// successor in the delegated subgroup (`DelegateSubgroup=supervisor`), and so does this.
  private static func placement(in service: String) -> String {
    let supervisor = service + "/supervisor"
    return access(supervisor, F_OK) == 0 ? supervisor : service
  }

  /// Removes the cgroups (the service cgroup on pure v2, else the device's directory beside this process in every
  /// hierarchy, where jetsamd makes it) with whatever apps are left in them, and the directory.
  private static func removeTraces(directory: String, cgroupName: String, service: String?) -> [String] {
    var cgroups: [String]
    if let service {
      cgroups = [service]
    } else {
      // The device sits beside the daemon's own cgroup, which may be a `supervisor` leaf of the caller's.
      cgroups = CgroupHost.directories().values.sorted().map { own in
        (own.hasSuffix("/supervisor") ? String(own.dropLast("/supervisor".count)) : own) + "/" + cgroupName
      }
    }
    var problems: [String] = []
    for cgroup in cgroups {
      do { try removeCgroupTree(cgroup) } catch { problems.append("\(error)") }
    }
    try? FileManager.default.removeItem(atPath: directory)
    return problems
  }
}
