import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The restoration check a developer runs: save at didEnterBackground, get killed while suspended, relaunch,
/// restore — with the Swift demo app (JetsamClient), the Python module and the bash example.
@Suite(
  "State restoration", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct RestorationTests {
  static let demoApp = Binaries.current.demoApp
  static let pythonApp = Binaries.packageRoot + "/clients/python/example_app.py"
  static let bashApp = Binaries.packageRoot + "/clients/bash/example-app.sh"

  /// A jetsamd whose lifecycle rules run ten times faster, suspending only on request.
  static func fastDaemon() throws -> DaemonHarness {
    try DaemonHarness(config: "{ timeScale: \(TestTiming.timeScale(0.1)), suspend: { backgroundGrace: null } }")
  }

  /// The demo app, keeping its state in the daemon's directory.
  static func demoCommand(_ daemon: DaemonHarness) -> [String] {
    [demoApp, "--state-dir", daemon.directory]
  }

  /// Runs an app through foreground → background (it saves) → suspended → jetsam kill → relaunch, and returns
  /// the kill's record and the relaunched app's `ps` row once it has its verdict (`lost` comes at the launch
  /// deadline, 20 s scaled; the others as soon as the app reports).
  static func killWhileSuspendedAndRelaunch(_ daemon: DaemonHarness, _ name: String, _ command: [String]) throws
    -> (record: ExitRecord, info: AppInfo)
  {
    #expect(try daemon.ctl(["launch", name, "--"] + command).status == 0)
    usleep(800_000)  // let it run (the demo app counts while active)
    #expect(try daemon.ctl(["background", name]).status == 0)
    try daemon.waitUntil("\(name) to save its state at didEnterBackground") {
      try daemon.apps()[name]?.status.summary != nil
    }
    usleep(200_000)
    return try jetsamKillWhileSuspendedAndRelaunch(daemon, name)
  }

  /// Suspends app `name`, has jetsam kill it under pressure, relaunches it, and returns the kill's record and the
  /// relaunch's `ps` row once it has its verdict.
  static func jetsamKillWhileSuspendedAndRelaunch(_ daemon: DaemonHarness, _ name: String) throws
    -> (record: ExitRecord, info: AppInfo)
  {
    #expect(try daemon.ctl(["suspend", name]).status == 0)
    #expect(try daemon.ctl(["pressure", "set", "urgent", "--wait"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first { $0.app == name })
    #expect(record.cause.reason == .memoryPressure)
    #expect(record.lifecycle.state == .suspended)
    #expect(try daemon.ctl(["pressure", "clear"]).status == 0)
    #expect(try daemon.ctl(["activate", name]).status == 0)
    var info: AppInfo?
    try daemon.waitUntil("\(name)'s relaunch to get its verdict") {
      info = try daemon.apps()[name]
      return info?.status.launch == 2 && info?.status.restoration != nil && info?.status.restoration != .pending
    }
    #expect(info?.status.previousDigest == record.savedState.digest)
    return (record, try #require(info))
  }

  @Test("the demo app restores exactly what it saved before a jetsam kill")
  func demoAppMatches() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (record, info) = try Self.killWhileSuspendedAndRelaunch(daemon, "demo", Self.demoCommand(daemon))
    #expect(record.savedState.digest != nil, "the saved digest is in the exit record")
    #expect(info.status.restoration == .match)
    #expect(info.status.summary?.hasPrefix("count=") == true, "\(info.status.summary ?? "nil")")
  }

  @Test("a launch that saves nothing new leaves the digest it restored: the next relaunch still gets a verdict")
  func digestCarriesOver() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (killed, first) = try Self.killWhileSuspendedAndRelaunch(daemon, "demo", Self.demoCommand(daemon))
    #expect(killed.savedState.digest != nil, "the saved digest is in the exit record")
    #expect(first.status.restoration == .match)
    // Killed in the foreground: it never reached didEnterBackground, so it saved nothing new.
    #expect(try daemon.ctl(["kill", "demo"]).status == 0)
    let records = try daemon.waitForRecords(2)
    #expect(records[1].savedState.digest != nil && records[1].savedState.digest == records[0].savedState.digest)
    #expect(try daemon.ctl(["activate", "demo"]).status == 0)
    var info: AppInfo?
    try daemon.waitUntil("the third launch's verdict") {
      info = try daemon.apps()["demo"]
      return info?.status.launch == 3 && (info?.status.restoration == .match || info?.status.restoration == .mismatch)
    }
    #expect(info?.status.restoration == .match, "it restored what the first launch saved")
  }

  @Test(
    "each restoration bug gets its verdict, and the fixed app a match",
    arguments: [
      ([String](), "match"), (["--forget-to-save"], "mismatch"), (["--forget-to-restore"], "lost"),
      (["--unreported-save"], "unsaved"),
    ])
  func verdicts(_ flags: [String], _ verdict: String) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (_, info) = try Self.killWhileSuspendedAndRelaunch(daemon, "demo", Self.demoCommand(daemon) + flags)
    #expect(info.status.restoration?.rawValue == verdict)
    #expect(try daemon.ctl(["ps"]).stdout.contains("RESTORATION"), "a column of the ps table")
    // Kept in the launch's exit record: listed after the app ended, and after a daemon restart.
    #expect(try daemon.ctl(["kill", "demo"]).status == 0)
    _ = try daemon.waitForRecords(2)
    try daemon.restart()
    let judged = try daemon.ctlJSON([ExitRecord].self, ["exits", "--verdicts", "--app", "demo"])
    #expect(judged.map(\.launch) == [2] && judged.first?.savedState.restoration?.rawValue == verdict)
    #expect(try daemon.ctl(["exits", "--verdicts"]).stdout.contains(verdict))
  }

  /// Runs an app through foreground → background (it saves) → suspended for `seconds` → foreground, and returns
  /// its `ps` row once its return has a verdict. (Across a daemon restart: the systemd test, section 8c, where
  /// the app's channel survives in systemd's descriptor store.)
  static func returnAfterSuspension(_ daemon: DaemonHarness, _ name: String, _ command: [String], seconds: Double)
    throws -> AppInfo
  {
    #expect(try daemon.ctl(["launch", name, "--"] + command).status == 0)
    usleep(300_000)
    #expect(try daemon.ctl(["background", name]).status == 0)
    try daemon.waitUntil("\(name) to save its state at didEnterBackground") {
      try daemon.apps()[name]?.status.savedDigest != nil
    }
    #expect(try daemon.ctl(["suspend", name]).status == 0)
    usleep(UInt32(seconds * 1_000_000))
    #expect(try daemon.ctl(["activate", name]).status == 0)
    var info: AppInfo?
    try daemon.waitUntil("\(name)'s return to get its verdict") {
      info = try daemon.apps()[name]
      return info?.status.resumption?.verdict != nil
    }
    return try #require(info)
  }

  /// The `suspended=` an app printed for its first return: how long jetsamd told it it had been suspended.
  static func toldSuspended(_ daemon: DaemonHarness, _ name: String) throws -> Double? {
    let log = try String(contentsOfFile: daemon.stateDirectory + "/logs/\(name).log", encoding: .utf8)
    let heard = log.split(separator: "\n").first { $0.hasPrefix("willEnterForeground") }
    let field = heard?.split(separator: " ").first { $0.hasPrefix("suspended=") }
    return field.flatMap { Double($0.dropFirst("suspended=".count).filter { $0 != "s" }) }
  }

  @Test(
    "a return after the saved state expired: the app that does not refresh is stale, its fixed twin fresh",
    arguments: [
      (["--stale-on-resume"], "1", 1.5, "stale"), ([String](), "1", 1.5, "fresh"),
      (["--stale-on-resume"], "60", 0, "fresh"),
    ])
  func resumption(_ flags: [String], _ validFor: String, _ suspendedSeconds: Double, _ verdict: String) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let command = Self.demoCommand(daemon) + ["--feed-valid-for", validFor] + flags
    let info = try Self.returnAfterSuspension(daemon, "demo", command, seconds: suspendedSeconds)
    #expect(info.status.resumption?.verdict.rawValue == verdict)
    #expect(try daemon.ctl(["ps"]).stdout.contains(verdict), "the RESUMPTION column")
    // The app was told how long it was suspended: its line for the return says what it heard.
    let told = try #require(try Self.toldSuspended(daemon, "demo"))
    #expect(told >= suspendedSeconds && told < suspendedSeconds + 30)
    // Kept in the launch's exit record: listed after the app ended, and after a daemon restart.
    #expect(try daemon.ctl(["kill", "demo"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(
      record.savedState.resumption?.rawValue == verdict
        && record.savedState.resumedDigest == info.status.resumption?.resumedDigest)
    #expect(record.savedState.resumedStateValidForSeconds == Double(validFor))
    try daemon.restart()
    let judged = try daemon.ctlJSON([ExitRecord].self, ["exits", "--verdicts", "--app", "demo"])
    #expect(judged.map(\.savedState.resumption?.rawValue) == [verdict])
    #expect(try daemon.ctl(["exits", "--verdicts"]).stdout.contains(verdict))
  }

  @Test(
    "a Python app and a bash app that do not refresh after a long suspension are stale, their fixed twins fresh",
    arguments: ["python", "bash"], [true, false])
  func resumptionInOtherLanguages(_ language: String, _ buggy: Bool) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let fixtures = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/"
    let app = language == "python" ? ["/usr/bin/python3", fixtures + "feed_app.py"] : [fixtures + "feed-app.sh"]
    let command = app + ["1"] + (buggy ? ["--stale-on-resume"] : [])
    let info = try Self.returnAfterSuspension(daemon, language, command, seconds: 1.5)
    #expect(info.status.resumption?.verdict == (buggy ? .stale : .fresh))
    #expect(try Self.toldSuspended(daemon, language).map { $0 >= 1.5 } == true)
  }

  @Test("--forget-to-save is caught: the restored state does not match")
  func forgetToSaveIsCaught() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    #expect(
      try daemon.ctl(["launch", "demo", "--"] + Self.demoCommand(daemon) + ["--forget-to-save"]).status == 0)
    usleep(800_000)
    #expect(try daemon.ctl(["background", "demo"]).status == 0)
    try daemon.waitUntil("the digest it claims to have saved") { try daemon.apps()["demo"]?.status.summary != nil }
    usleep(200_000)
    #expect(try daemon.ctl(["suspend", "demo"]).status == 0)
    #expect(try daemon.ctl(["kill", "demo"]).status == 0)
    _ = try daemon.waitForRecords(1)
    // The relaunch runs without the bug: it restores what really is on disk.
    #expect(try daemon.ctl(["launch", "demo", "--"] + Self.demoCommand(daemon)).status == 0)
    try daemon.waitUntil("a verdict") { try daemon.apps()["demo"]?.status.restoration == .mismatch }
  }

  @Test("a Python app and a bash app go through the same lifecycle and restore", arguments: ["python", "bash"])
  func otherLanguages(_ language: String) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let command =
      language == "python" ? ["/usr/bin/python3", Self.pythonApp, daemon.directory] : [Self.bashApp, daemon.directory]
    let (record, info) = try Self.killWhileSuspendedAndRelaunch(daemon, language, command)
    #expect(record.savedState.digest != nil, "the saved digest is in the exit record")
    #expect(info.status.restoration == .match)
    let output = try String(contentsOfFile: daemon.stateDirectory + "/logs/\(language).log", encoding: .utf8)
    for event in ["didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground"] {
      #expect(output.contains(event), "\(language) app never printed \(event)")
    }
  }

  @Test(
    "the demo app's misbehaviours end as iOS would record them",
    arguments: [
      (["--hang-in", "didEnterBackground"], ExitReason.appWatchdog),
      (["--never-end-task"], ExitReason.backgroundTaskAssertionTimeout),
      (["--crash", "ill"], ExitReason.illegalInstruction),
    ])
  func misbehaviours(_ flags: [String], _ reason: ExitReason) throws {
    let daemon = try DaemonHarness(
      config: "{ timeScale: \(TestTiming.timeScale(0.1)), suspend: { backgroundGrace: \"100ms\" } }")
    defer { daemon.stop() }
    #expect(
      try daemon.ctl(["launch", "demo", "--"] + Self.demoCommand(daemon) + flags).status == 0)
    if reason != .illegalInstruction {
      usleep(500_000)
      #expect(try daemon.ctl(["background", "demo"]).status == 0)
    }
    let record = try #require(try daemon.waitForRecords(1, timeout: 15).first)
    #expect(record.cause.reason == reason)
  }
}
