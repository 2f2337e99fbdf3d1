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

/// Who killed an app survives jetsamd's death: a jetsam kill decided and signalled by a jetsamd that is SIGKILLed
/// before it reaps the victim is recorded by its successor as that kill (`memoryPressure`, the level and snapshot of
/// the decision), whether or not the state file was saved after the signal.
/// Each trial has a jetsamd of its own, so they run side by side.
@Suite(
  "A kill in flight across jetsamd's death", .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct KillInFlightTests {
  /// 20 on a bare host (issue 35 asks for 20 of 20); 10 where the machine is slowed down (the emulated v2 VM, where
  /// one trial takes half a minute and 20 would make this suite the longest of the run).
  static let trials = TestTiming.slowdown > 1 ? 10 : 20

  /// Even trials take the state file as the dead jetsamd left it (saved after the kill or not: the race of a real
  /// crash); odd ones take away what the save after the kill wrote, as if jetsamd had died the moment the signal
  /// was out, so that only the kill journal can tell.
  @Test("a jetsam victim is recorded for its kill by the successor, in every trial", arguments: 0..<trials)
  func jetsamKillSurvives(trial: Int) throws {
    let daemon = try DaemonHarness(config: "{ debugRequests: true, suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let victim = try daemon.launch("victim", ["idle"], options: ["--background"])
    let bystander = try daemon.launch("bystander", ["idle"])
    #expect(try daemon.ctl(["suspend", "victim"]).status == 0)

    // Critical pressure and a freeze of the loop in one write: jetsamd decides the kill of the suspended app and
    // sends its SIGKILL, then hangs before it can see the exit; it dies there.
    let client = try ControlClient(path: daemon.socket)
    var force = ControlRequest(verb: .pressure)
    force.action = "set"
    force.level = .critical
    let freeze = ControlRequest(verb: .debugFreeze)
    try client.write(raw: try client.encode(force) + client.encode(freeze))
    #expect(try client.nextResponse()?.ok == true)
    try daemon.waitUntil("the victim is dead") { !isAlive(victim) }
    daemon.crash()
    // In the runtime directory, beside the socket.
    let journal = URL(fileURLWithPath: daemon.socket).deletingLastPathComponent().path + "/kills.jsonl"
    if trial % 2 == 1 {
      #expect(try String(contentsOfFile: journal, encoding: .utf8).contains("\"app\":\"victim\""))
      try Self.forgetKillsInFlight(stateFile: daemon.stateDirectory + "/state.json")
    }

    try daemon.jetsamd.startAgain()
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "victim" && record.pid == victim)
    #expect(
      record.cause.reason == .memoryPressure, "trial \(trial): \(record.cause.reason) \(record.cause.terminationReason)"
    )
    #expect(record.cause.endedBy == .jetsam)
    #expect(record.pressure.level == .critical)
    #expect(
      Set(record.pressure.snapshot?.map(\.name) ?? []) == ["victim", "bystander"], "the snapshot of the decision")
    #expect(isAlive(bystander), "the bystander was adopted, not killed")
    #expect(try daemon.apps()["bystander"]?.status.pid == bystander)
  }

  @Test("a victim that outlives two jetsamds (held where SIGKILL waits) keeps its kill in every state file")
  func killOfAHeldVictimSurvivesTwoDeaths() throws {
    let daemon = try DaemonHarness(config: "{ debugRequests: true, suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let victim = try daemon.launch("victim", ["idle"], options: ["--background"])
    _ = try daemon.launch("bystander", ["idle"])
    #expect(try daemon.ctl(["suspend", "victim"]).status == 0)
    // In a frozen v1 freezer a SIGKILL waits until the thaw (PLATFORM.md); a v2 freeze lets it act at once.
    let held = try HeldProcess(victim)
    defer { held.release() }

    let client = try ControlClient(path: daemon.socket)
    var force = ControlRequest(verb: .pressure)
    force.action = "set"
    force.level = .critical
    try client.write(raw: try client.encode(force) + client.encode(ControlRequest(verb: .debugFreeze)))
    #expect(try client.nextResponse()?.ok == true)
    let statePath = daemon.stateDirectory + "/state.json"
    try daemon.waitUntil("the kill in flight saved") {
      (try? String(contentsOfFile: statePath, encoding: .utf8))?.contains("\"killInFlight\"") == true
    }
    daemon.crash()
    if isAlive(victim) {
      // The successor adopts the dying victim with the kill the state file held, and must save it again: a second
      // death of jetsamd before the victim's end would otherwise leave a SIGKILL nobody explains.
      try daemon.jetsamd.startAgain()
      #expect(try daemon.apps()["victim"]?.status.pid == victim)
      // A save of the successor's own, after the one at its start: a change of another app's state.
      try? FileManager.default.removeItem(atPath: statePath)
      #expect(try daemon.ctl(["background", "bystander"]).status == 0)
      try daemon.waitUntil("the successor's state file") {
        (try? String(contentsOfFile: statePath, encoding: .utf8))?.contains("\"victim\"") == true
      }
      #expect(
        try String(contentsOfFile: statePath, encoding: .utf8).contains("\"killInFlight\""),
        "the successor's state file dropped the kill")
      daemon.crash()
    }
    try daemon.jetsamd.startAgain()
    held.release()
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "victim" && record.pid == victim)
    #expect(record.cause.reason == .memoryPressure, "\(record.cause.reason) \(record.cause.terminationReason)")
    #expect(record.pressure.level == .critical)
    #expect(Set(record.pressure.snapshot?.map(\.name) ?? []) == ["victim", "bystander"])
  }

  /// Removes every app's kill in flight from the state file at `stateFile`.
  static func forgetKillsInFlight(stateFile: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
    guard var state = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let apps = state["apps"] as? [[String: Any]]
    else { throw TestKitError("\(stateFile) is not a state file") }
    state["apps"] = apps.map { app -> [String: Any] in
      var app = app
      if var adopted = app["adopted"] as? [String: Any] {
        adopted["killInFlight"] = nil
        app["adopted"] = adopted
      }
      return app
    }
    try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: stateFile))
  }
}
