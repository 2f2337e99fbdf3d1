import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import Testing

/// Whether the tests run as root: the daemon creates cgroups, which needs it.
let isRoot = getuid() == 0

/// Where the package's built executables are: `$JETSAM_BIN_DIR`, else `<package root>/.build/debug`.
enum Binaries {
  static let packageRoot: String = {
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/")
  }()
  static var directory: String {
    ProcessInfo.processInfo.environment["JETSAM_BIN_DIR"] ?? packageRoot + "/.build/debug"
  }
  static var jetsamd: String { directory + "/jetsamd" }
  static var jetsamctl: String { directory + "/jetsamctl" }
  static var testapp: String { directory + "/jetsam-testapp" }
}

/// How much slower than a bare host the tests run (`JETSAM_TEST_SLOWDOWN`, e.g. 4 inside the emulated cgroup
/// v2 VM): waits and the lifecycle time scale of test configs stretch by this factor, deadlines stay exact.
enum TestTiming {
  static let slowdown: Double = {
    guard let text = ProcessInfo.processInfo.environment["JETSAM_TEST_SLOWDOWN"], let value = Double(text), value >= 1
    else { return 1 }
    return value
  }()

  /// A config `timeScale` for tests: `base` on a bare host, stretched by the slowdown elsewhere.
  static func timeScale(_ base: Double) -> String { String(min(1, base * slowdown)) }
}

/// What a finished command printed and how it ended.
struct CommandResult {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs a program to completion (with a generous time limit), capturing its output.
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 30)
  throws -> CommandResult
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  // Drain both pipes while the process runs, so a large output cannot block it.
  let outData = LockedData()
  let errData = LockedData()
  let group = DispatchGroup()
  for (pipe, sink) in [(out, outData), (err, errData)] {
    group.enter()
    DispatchQueue.global().async {
      sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
      group.leave()
    }
  }
  let deadline = Date().addingTimeInterval(timeout)
  while process.isRunning && Date() < deadline { usleep(2000) }
  if process.isRunning {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    Issue.record("\(executable) \(arguments.joined(separator: " ")) timed out after \(timeout)s")
  }
  process.waitUntilExit()
  group.wait()
  return CommandResult(
    status: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
    stderr: String(decoding: errData.get(), as: UTF8.self))
}

final class LockedData: @unchecked Sendable {
  private var data = Data()
  private let lock = NSLock()
  func set(_ value: Data) { lock.withLock { data = value } }
  func get() -> Data { lock.withLock { data } }
}

/// A real jetsamd for one test: its own config, state directory, socket and device cgroup, all removed by
/// ``stop()`` (apps it leaves behind are killed by pid through their cgroups).
final class DaemonHarness {
  let directory: String
  let cgroupName: String
  let socket: String
  let stateDirectory: String
  let logPath: String
  private(set) var process: Process?

  /// Starts jetsamd with `config` (JSON5 text; `device.cgroupName`, `stateDirectory` and `runtimeDirectory`
  /// are added) and waits until its control socket answers.
  /// `environment` adds variables to jetsamd's own (e.g. a NOTIFY_SOCKET standing in for systemd's).
  init(config: String = "{}", extraArguments: [String] = [], environment: [String: String] = [:]) throws {
    let id = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    directory = NSTemporaryDirectory() + "jetsam-test-\(id)"
    cgroupName = "jetsam-test-\(id)"
    socket = directory + "/run/jetsamd.sock"
    stateDirectory = directory + "/state"
    logPath = directory + "/jetsamd.log"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let configPath = directory + "/jetsamd.json5"
    try DaemonHarness.merged(config, cgroupName: cgroupName, directory: directory)
      .write(toFile: configPath, atomically: true, encoding: .utf8)
    arguments = ["--config", configPath, "--foreground", "--verbose"] + extraArguments
    self.environment = environment
    try start(arguments: arguments)
  }

  private var arguments: [String] = []
  private var environment: [String: String] = [:]

  /// SIGKILLs jetsamd and starts a new one with the same config and state directory (in the same service
  /// cgroup on pure v2), as systemd's Restart= would.
  func restart() throws {
    crash()
    try start(arguments: arguments)
  }

  /// Where a (re)started daemon goes on pure v2. Once the first jetsamd has enabled controllers below the
  /// service cgroup, nothing may join the service cgroup itself while apps live below it: systemd ≥ 254 starts
  /// the successor in the delegated subgroup (`DelegateSubgroup=supervisor`), and so does this harness.
  private func placement(for service: String) -> String {
    let supervisor = service + "/supervisor"
    return FileManager.default.fileExists(atPath: supervisor) ? supervisor : service
  }

  /// On a pure cgroup v2 host, the cgroup the daemon is started in, as systemd would place a service
  /// (`/sys/fs/cgroup/<name>.service`); the daemon moves itself into a leaf below it. Nil on the hybrid layout.
  private(set) var serviceCgroup: String?

  private func start(arguments: [String]) throws {
    let process = Process()
    if CgroupCleanup.isPureV2 {
      let service = "/sys/fs/cgroup/\(cgroupName).service"
      if !FileManager.default.fileExists(atPath: service) {
        try FileManager.default.createDirectory(atPath: service, withIntermediateDirectories: false)
      }
      serviceCgroup = service
      // Join the service cgroup before exec, so that the daemon never runs anywhere else.
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments =
        ["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", placement(for: service), Binaries.jetsamd] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: Binaries.jetsamd)
      process.arguments = arguments
    }
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    // Kept across restarts: the log shows both daemons.
    if !FileManager.default.fileExists(atPath: logPath) {
      _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    log.seekToEndOfFile()
    process.standardOutput = log
    process.standardError = log
    try process.run()
    self.process = process
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if !process.isRunning {
        throw HarnessError("jetsamd exited during start-up (\(process.terminationStatus)):\n\(self.log)")
      }
      if (try? ctl(["status"]).status) == 0 { return }
      usleep(20_000)
    }
    throw HarnessError("jetsamd did not answer on \(socket) within 20 s:\n\(self.log)")
  }

  /// The daemon's pid.
  var pid: Int32 { process?.processIdentifier ?? 0 }

  /// The daemon's log so far.
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// Path of the durable exit record log.
  var recordLogPath: String { stateDirectory + "/exits.jsonl" }

  /// Runs jetsamctl against this daemon.
  @discardableResult
  func ctl(_ arguments: [String]) throws -> CommandResult {
    try runCommand(Binaries.jetsamctl, ["--socket", socket] + arguments)
  }

  /// Runs jetsamctl with --json, requires success, and decodes its output.
  func ctlJSON<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
    let result = try ctl(["--json"] + arguments)
    guard result.status == 0 else {
      throw HarnessError("jetsamctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
    }
    return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
  }

  /// Launches an ad-hoc app running jetsam-testapp with `testappArguments`; returns its pid.
  @discardableResult
  func launch(_ name: String, _ testappArguments: [String], options: [String] = [], executable: String? = nil)
    throws -> Int32
  {
    let info = try ctlJSON(
      AppInfo.self, ["launch", name] + options + ["--", executable ?? Binaries.testapp] + testappArguments)
    guard let pid = info.pid else { throw HarnessError("launch \(name) gave no pid") }
    return pid
  }

  /// The apps as `ps --json` reports them, by name.
  func apps() throws -> [String: AppInfo] {
    Dictionary(uniqueKeysWithValues: try ctlJSON([AppInfo].self, ["ps"]).map { ($0.name, $0) })
  }

  /// Exit records as read straight from the durable log file.
  func recordsOnDisk() throws -> [ExitRecord] {
    guard let text = try? String(contentsOfFile: recordLogPath, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(ExitRecord.self, from: Data($0.utf8)) }
  }

  /// Waits until `condition` holds (polling every 20 ms), failing after `timeout` seconds.
  func waitUntil(_ what: String, timeout: Double = 15, _ condition: () throws -> Bool) throws {
    let timeout = timeout * TestTiming.slowdown
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try condition() { return }
      usleep(20_000)
    }
    throw HarnessError("timed out after \(timeout)s waiting for \(what)\n--- jetsamd log ---\n\(log)")
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

  /// SIGKILLs the daemon (its apps keep running, as they would after a crash).
  func crash() {
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Stops the daemon gracefully (SIGTERM; SIGKILL after 20 s), then removes every trace: processes left in
  /// the device cgroup (killed by pid through cgroup.kill), the cgroups, the temp directory.
  func stop() {
    if let process, process.isRunning {
      kill(process.processIdentifier, SIGTERM)
      let deadline = Date().addingTimeInterval(20)
      while process.isRunning && Date() < deadline { usleep(10_000) }
      if process.isRunning {
        Issue.record("jetsamd did not stop within 20 s of SIGTERM")
        kill(process.processIdentifier, SIGKILL)
      }
      process.waitUntilExit()
    }
    if let serviceCgroup {
      CgroupCleanup.removeTree(serviceCgroup)
    } else {
      CgroupCleanup.removeDevice(named: cgroupName)
    }
    try? FileManager.default.removeItem(atPath: directory)
  }

  private static func merged(_ config: String, cgroupName: String, directory: String) -> String {
    // The harness's keys go first; a JSON5 object literal may repeat none of them, so tests must not set them.
    let body = config.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
    return """
      {
        stateDirectory: "\(directory)/state",
        runtimeDirectory: "\(directory)/run",
        \(body.contains("controlGroup:") ? "" : "controlGroup: null,")
        \(body.contains("device:") ? "" : "device: { cgroupName: \"\(cgroupName)\" },")
        \(body.replacingOccurrences(of: "device: {", with: "device: { cgroupName: \"\(cgroupName)\", "))
      }
      """
  }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The state letter of a process (`R`, `S`, `T`, `Z`…), from /proc/PID/stat; nil when it is gone.
func processState(_ pid: Int32) -> Character? {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = text.lastIndex(of: ")")
  else { return nil }
  return text[text.index(after: close)...].dropFirst().first
}

/// Whether a pid is alive and not a zombie.
func isAlive(_ pid: Int32) -> Bool {
  guard let state = processState(pid) else { return false }
  return state != "Z" && state != "X"
}

/// Removes a test device cgroup and everything in it, in every hierarchy, killing leftover processes by pid.
enum CgroupCleanup {
  /// Whether /sys/fs/cgroup itself is the unified hierarchy (no v1 controllers).
  static var isPureV2: Bool {
    !FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified")
      && FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
  }

  static func removeDevice(named name: String) {
    for directory in deviceDirectories(named: name) where FileManager.default.fileExists(atPath: directory) {
      removeTree(directory)
    }
  }

  /// `<mount>/<this process's cgroup in that hierarchy>/<name>` for each mounted hierarchy.
  static func deviceDirectories(named name: String) -> [String] {
    guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return [] }
    var result: [String] = []
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { continue }
      let controllers = parts[1].split(separator: ",").map(String.init)
      let mount: String
      if controllers.isEmpty {
        mount =
          FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs")
          ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"
      } else if let first = controllers.first, first.hasPrefix("name=") {
        mount = "/sys/fs/cgroup/" + first.dropFirst(5)
      } else {
        mount = "/sys/fs/cgroup/" + controllers.joined(separator: ",")
      }
      guard FileManager.default.fileExists(atPath: mount) else { continue }
      var own = String(parts[2])
      if own.hasSuffix("/supervisor") { own = String(own.dropLast("/supervisor".count)) }
      result.append(mount + (own == "/" ? "" : own) + "/" + name)
    }
    return result
  }

  /// Removes a cgroup directory and its descendants, killing (by pid) any process still inside.
  static func removeTree(_ directory: String) {
    let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for child in children {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: directory + "/" + child, isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        removeTree(directory + "/" + child)
      }
    }
    for _ in 0..<200 {
      let procs = (try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? ""
      let pids = procs.split(separator: "\n").compactMap { Int32($0) }
      if pids.isEmpty { break }
      for pid in pids {
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
      }
      usleep(10_000)
    }
    rmdir(directory)
  }
}
