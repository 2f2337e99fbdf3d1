import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// A crashed jetsamd's successor re-adopts the apps it left running and records what happened meanwhile.
@Suite(
  "Daemon restart", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct RestartTests {
  @Test("a second jetsamd on the same state directory or the same device refuses to start; the first runs on")
  func oneDaemonPerDevice() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("kept", ["idle"], options: ["--background"])
    // The same config: same state directory, same device.
    let same = try runCommand(
      Binaries.current.jetsamd, ["--config", daemon.jetsamd.configPath, "--foreground"], timeout: .seconds(20))
    #expect(same.status == 1, "\(same.stderr)")
    #expect(same.stderr.contains("another jetsamd (pid \(daemon.pid)) is using the state directory"), "\(same.stderr)")
    // Another state directory, runtime directory and socket, but the same device cgroup.
    let other = daemon.jetsamd.directory + "-other"
    defer { try? FileManager.default.removeItem(atPath: other) }
    let config = try String(contentsOfFile: daemon.jetsamd.configPath, encoding: .utf8)
      .replacingOccurrences(of: daemon.jetsamd.directory + "/", with: other + "/")
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    try config.write(toFile: other + "/jetsamd.json5", atomically: true, encoding: .utf8)
    var command = [Binaries.current.jetsamd, "--config", other + "/jetsamd.json5", "--foreground"]
    if CgroupHost.isPureV2 {
      // Here each test daemon runs in a service cgroup of its own, and a device lives below its daemon's cgroup:
      // to reach the same device, the second daemon starts in the first one's cgroup.
      let line = try String(contentsOfFile: "/proc/\(daemon.pid)/cgroup", encoding: .utf8)
        .split(separator: "\n").first { $0.hasPrefix("0::") }
      let own = try #require(line.map { String($0.dropFirst(3)) })
      command = ["/bin/sh", "-c", "echo $$ > \(CgroupHost.root)\(own)/cgroup.procs && exec \"$@\"", "sh"] + command
    }
    let sameDevice = try runCommand(command[0], Array(command.dropFirst()), timeout: .seconds(20))
    #expect(sameDevice.status == 1, "\(sameDevice.stderr)")
    #expect(sameDevice.stderr.contains("another jetsamd is running on the device cgroup"), "\(sameDevice.stderr)")
    // The first daemon and its app are untouched.
    #expect(isAlive(pid))
    #expect(try daemon.apps()["kept"]?.status.pid == pid)
  }

  @Test("apps survive a daemon crash, are re-adopted with their states, and the kill order holds across it")
  func readoption() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    var pids: [String: Int32] = [:]
    for name in ["a", "b", "c", "d", "fg"] { pids[name] = try daemon.launch(name, ["alloc", "8", "--hold"]) }
    let order = ["c", "a", "d"]
    for name in order {
      #expect(try daemon.ctl(["suspend", name]).status == 0)
      usleep(20_000)
    }
    let before = try daemon.apps()
    try daemon.restart()
    let after = try daemon.apps()
    for name in ["a", "b", "c", "d", "fg"] {
      #expect(after[name]?.status.pid == pids[name], "\(name) kept its process")
      #expect(after[name]?.status.state.coarse == before[name]?.status.state.coarse, "\(name) kept its state")
      #expect(after[name]?.status.launch == 1)
      #expect(isAlive(pids[name]!))
    }
    #expect(processState(pid: pids["c"]!) == "T")
    #expect(
      (after["c"]?.measured.stateSeconds ?? 0) >= (before["c"]?.measured.stateSeconds ?? 0), "suspended time kept")

    // The successor kills in the same order: longest-suspended first.
    #expect(try daemon.ctl(["pressure", "set", "urgent"]).status == 0)
    let records = try daemon.waitForRecords(4)
    #expect(Array(records.map(\.app).prefix(3)) == order, "\(records.map(\.app))")
    #expect(records.prefix(3).allSatisfy { $0.cause.reason == .memoryPressure && $0.lifecycle.state == .suspended })
  }

  @Test("an app that died while no daemon ran gets one honest record, never a duplicate")
  func diedUnwatched() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let doomed = try daemon.launch("doomed", ["idle"])
    let recorded = try daemon.launch("recorded", ["exit", "3"])
    _ = try daemon.waitForRecords(1)
    daemon.crash()
    kill(doomed, SIGKILL)
    usleep(100_000)
    try daemon.restart()
    let records = try daemon.waitForRecords(2)
    let doomedRecord = try #require(records.first { $0.app == "doomed" })
    #expect(doomedRecord.pid == doomed)
    #expect(doomedRecord.cause.reason == .abnormal)
    #expect(
      doomedRecord.cause.terminationReason == "SIGNAL 0x9"
        || doomedRecord.cause.terminationReason == "JETSAM exited-unsupervised")
    #expect(records.filter { $0.app == "recorded" && $0.pid == recorded }.count == 1, "no duplicate across the restart")
    #expect(try daemon.apps()["doomed"]?.status.state.coarse == .notRunning)
  }

  @Test("a victim killed just before the daemon died is recorded for that kill, with the pressure of its time")
  func killInFlightSurvivesCrash() throws {
    let daemon = try DaemonHarness(config: "{ debugRequests: true, suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let victim = try daemon.launch("victim", ["idle"], options: ["--background"])
    // The kill and a freeze of the loop in one write: jetsamd sends SIGKILL and saves the kill in flight, then
    // hangs before it can see the exit, and dies there.
    let client = try ControlClient(path: daemon.socket)
    let kill = #"{"v":1,"verb":"kill","app":"victim","reason":"appWatchdog"}"#
    try client.write(raw: Array((kill + "\n" + #"{"v":1,"verb":"debugFreeze"}"# + "\n").utf8))
    #expect(try client.nextResponse()?.ok == true)
    try daemon.waitUntil("the victim is dead") { !isAlive(victim) }
    // The state file is written on its own thread, which the frozen loop does not hold up; the daemon dies only
    // once the kill is in it (a crash of the whole process a moment after the signal would lose it: the
    // successor would then record an unexplained SIGKILL).
    let statePath = daemon.stateDirectory + "/state.json"
    try daemon.waitUntil("the kill in flight saved") {
      (try? String(contentsOfFile: statePath, encoding: .utf8))?.contains("\"killInFlight\"") == true
    }
    try daemon.restart()
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == victim)
    #expect(record.cause.reason == .appWatchdog, "not an unexplained exit: \(record.cause.terminationReason)")
    #expect(record.cause.terminationReason == ExitReason.appWatchdog.requestedKillCode)
    #expect(record.pressure.level == .normal)
  }
}
