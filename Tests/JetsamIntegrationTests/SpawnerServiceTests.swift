import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// jetsamd with a spawner service (`spawnerSocket`): the service starts and reaps the apps, jetsamd keeps their
/// pidfds and learns how each ended from the service, across its own restart too.
@Suite(
  "Spawner service", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct SpawnerServiceTests {
  /// A jetsam-spawner listening in its own directory, stopped (and its socket removed) by `stop()`.
  final class Spawner {
    let directory: String
    var process: ChildProcess
    var socket: String { directory + "/spawner.sock" }

    init() throws {
      directory = NSTemporaryDirectory() + "jetsam-spawner-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      process = try Self.start(directory + "/spawner.sock")
    }

    static func start(_ socket: String) throws -> ChildProcess {
      let process = try ChildProcess(Binaries.current.spawner, ["--socket", socket, "--foreground", "--verbose"])
      try waitUntil("jetsam-spawner to listen", timeout: .seconds(10 * TestTiming.slowdown)) {
        access(socket, F_OK) == 0 || !process.isRunning
      }
      guard process.isRunning else { throw TestKitError("jetsam-spawner ended: \(process.log.text)") }
      return process
    }

    func restart() throws {
      _ = process.stop(signal: SIGKILL)
      process = try Self.start(socket)
    }

    func stop() {
      _ = process.stop()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// The parent pid of `pid` (/proc/PID/stat's fourth field).
  static func parent(of pid: Int32) -> Int32? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(after: end)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) }
  }

  @Test("apps are the service's children; their exits reach the records exactly, kills and hooks work")
  func launchesThroughTheService() throws {
    let spawner = try Spawner()
    defer { spawner.stop() }
    let marker = NSTemporaryDirectory() + "jetsam-spawner-hook-\(getpid())"
    defer { unlink(marker) }
    let daemon = try DaemonHarness(
      config: """
        { spawnerSocket: "\(spawner.socket)", suspend: { backgroundGrace: null },
          apps: { saver: { command: ["\(Binaries.current.testapp)", "idle"],
                           hooks: { didEnterBackground: { command: ["/bin/sh", "-c", "echo saved > \(marker)"] } } } } }
        """)
    defer { daemon.stop() }

    let idle = try daemon.launch("idle", ["idle"])
    #expect(Self.parent(of: idle) == spawner.process.pid, "the app is the service's child, not jetsamd's")
    let exiting = try daemon.launch("exiting", ["exit", "3"])
    #expect(exiting > 0)
    #expect(try daemon.ctl(["kill", "idle"]).status == 0)
    let records = try daemon.waitForRecords(2)
    let byApp = Dictionary(uniqueKeysWithValues: records.map { ($0.app, $0) })
    #expect(byApp["exiting"]?.cause.exitCode == 3 && byApp["exiting"]?.cause.terminationReason == "EXIT 3")
    #expect(byApp["idle"]?.cause.signal == 9 && byApp["idle"]?.cause.reason == .memoryPressure)

    // A command hook runs through the service too, and answers its event.
    #expect(try daemon.ctl(["launch", "saver"]).status == 0)
    #expect(try daemon.ctl(["background", "saver"]).status == 0)
    try daemon.waitUntil("the hook to write its marker") { access(marker, F_OK) == 0 }

    // A program that cannot start is an honest error, with the stage the service reached.
    let missing = try daemon.ctl(["launch", "nothing", "--", "/nonexistent/program"])
    #expect(missing.status == 1 && missing.stderr.contains("execve /nonexistent/program"), "\(missing.stderr)")
  }

  /// Crashes jetsamd, ends app `pid`, runs `meanwhile` once it has ended, and starts jetsamd again. The app ends
  /// with a status only its parent, the service, can tell (no kernel keeps it for a non-parent before 6.15):
  /// SIGUSR1, not SIGSEGV, which the Swift runtime in the test app swallows the first time kill() sends it.
  static func endWhileDaemonDown(_ daemon: DaemonHarness, _ pid: Int32, meanwhile: () throws -> Void = {}) throws {
    daemon.crash()
    kill(pid, SIGUSR1)
    try waitUntil("the app to end", timeout: .seconds(10)) { Self.parent(of: pid) == nil }
    try meanwhile()
    try daemon.jetsamd.startAgain()
  }

  @Test("an app that ends while jetsamd is down is recorded with its real status by the next jetsamd")
  func exitStatusSurvivesADaemonRestart() throws {
    let spawner = try Spawner()
    defer { spawner.stop() }
    let daemon = try DaemonHarness(config: "{ spawnerSocket: \"\(spawner.socket)\" }")
    defer { daemon.stop() }
    let pid = try daemon.launch("short", ["idle"])
    // Answered only once the state file holds the new process: a jetsamd killed the next moment leaves it to its
    // successor. (A run of this test lost the record when the answer came before the save.)
    let state = (try? String(contentsOfFile: daemon.stateDirectory + "/state.json", encoding: .utf8)) ?? ""
    #expect(state.contains("\"pid\":\(pid),") || state.contains("\"pid\":\(pid)}"), "\(state)")
    try Self.endWhileDaemonDown(daemon, pid)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(
      record.app == "short" && record.cause.signal == SIGUSR1 && record.cause.terminationReason == "SIGNAL 0xa",
      "\(record)")
  }

  @Test("a restarting jetsamd waits for a slow spawner service's hello, and records the app's real status")
  func slowHello() throws {
    let spawner = try Spawner()
    defer { spawner.stop() }
    let daemon = try DaemonHarness(config: "{ spawnerSocket: \"\(spawner.socket)\" }")
    defer { daemon.stop() }
    let pid = try daemon.launch("short", ["idle"])
    let service = spawner.process.pid
    defer { kill(service, SIGCONT) }
    try Self.endWhileDaemonDown(daemon, pid) {
      // Once it has reaped the app, the service slows down: stopped, it says nothing to the starting jetsamd until
      // it is continued two seconds later, past the one second jetsamd used to wait for it.
      kill(service, SIGSTOP)
      DispatchQueue.global().asyncAfter(deadline: .now() + 2) { kill(service, SIGCONT) }
    }
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(
      record.app == "short" && record.cause.signal == SIGUSR1 && record.cause.terminationReason == "SIGNAL 0xa",
      "\(record)")
  }

  @Test("an app whose jetsamd died before its state file held it, ended since, is recorded by the next jetsamd")
  func endOfAnAppTheStateFileMissed() throws {
    let spawner = try Spawner()
    defer { spawner.stop() }
    let daemon = try DaemonHarness(config: "{ spawnerSocket: \"\(spawner.socket)\" }")
    defer { daemon.stop() }
    try daemon.launch("kept", ["exit", "0"])
    _ = try daemon.waitForRecords(1)
    let pid = try daemon.launch("missed", ["idle"])
    try Self.endWhileDaemonDown(daemon, pid) {
      // As if jetsamd had died the moment after the spawn, before its state file held the app: it is not there.
      let path = daemon.stateDirectory + "/state.json"
      var state = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
      state["apps"] = (state["apps"] as? [[String: Any]] ?? []).filter {
        ($0["adopted"] as? [String: Any])?["name"] as? String != "missed"
      }
      try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))
    }
    let records = try daemon.waitForRecords(2)
    let record = try #require(records.last)
    #expect(record.app == "missed" && record.pid == pid && record.launch == 1, "\(record)")
    #expect(
      record.cause.signal == SIGUSR1 && record.cause.terminationReason == "SIGNAL 0xa",
      "the service's status: \(record)")
    // One record each: none twice.
    #expect(try daemon.recordsOnDisk().map(\.app) == ["kept", "missed"])
  }

  @Test(
    "without the service a launch fails with a precise error and jetsamd carries on; once it is back, launches work")
  func serviceGoneAndBack() throws {
    let spawner = try Spawner()
    defer { spawner.stop() }
    let daemon = try DaemonHarness(config: "{ spawnerSocket: \"\(spawner.socket)\" }")
    defer { daemon.stop() }
    let pid = try daemon.launch("survivor", ["idle"])
    _ = spawner.process.stop(signal: SIGKILL)
    let refused = try daemon.ctl(["launch", "refused", "--", Binaries.current.testapp, "idle"])
    #expect(refused.status == 1 && refused.stderr.contains("spawner service"), "\(refused.stderr)")
    #expect(try daemon.ctl(["status"]).status == 0, "jetsamd carries on")
    // The orphaned app's end is no longer the service's to tell: the kernel's (or unobserved), but recorded.
    try spawner.restart()
    try daemon.waitUntil("jetsamd to reconnect and launch again") {
      try daemon.ctl(["launch", "again", "--", Binaries.current.testapp, "idle"]).status == 0
    }
    #expect(try daemon.ctl(["kill", "survivor"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "survivor" && record.pid == pid)
  }
}
