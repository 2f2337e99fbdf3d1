import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Every jetsamctl verb against a real daemon, with its --json output checked against /proc, cgroup files and
/// the record log.
@Suite(
  "jetsamctl verbs", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct JetsamctlTests {
  @Test("launch, background, activate, suspend, resume, terminate, ps and status agree with the kernel")
  func lifecycleVerbs() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    // launch prints the pid and the app is in its own cgroup with the requested caps.
    let launched = try daemon.ctl([
      "launch", "mail", "--memory-limit", "64M", "--cpu-limit", "50", "--band", "mail", "--env", "GREETING=hi", "--",
      Binaries.current.testapp, "idle",
    ])
    #expect(launched.status == 0, "\(launched.stderr)")
    let mail = try #require(Int32(launched.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(isAlive(mail))
    let environment = try String(contentsOfFile: "/proc/\(mail)/environ", encoding: .utf8)
    #expect(environment.contains("GREETING=hi"))
    #expect(environment.contains("JETSAM_APP=mail"))
    let cgroupLines = try String(contentsOfFile: "/proc/\(mail)/cgroup", encoding: .utf8)
    #expect(cgroupLines.contains("/\(daemon.cgroupName)/mail"))

    var apps = try daemon.apps()
    #expect(apps["mail"]?.status.state.coarse == .foreground)
    #expect(apps["mail"]?.status.state == .foregroundActive)
    #expect(apps["mail"]?.status.pid == mail)
    #expect(apps["mail"]?.measured.memoryLimitBytes == 64 << 20)
    #expect(apps["mail"]?.status.launch == 1)
    #expect((apps["mail"]?.measured.memoryBytes ?? 0) > 0)

    // A second launch takes the single foreground slot.
    let maps = try daemon.launch("maps", ["idle"])
    apps = try daemon.apps()
    #expect(apps["mail"]?.status.state.coarse == .background)
    #expect(apps["mail"]?.status.band == .mail, "a mail-floored app stays in the mail band in the background")
    #expect(apps["maps"]?.status.state.coarse == .foreground)

    // background / activate swap them back.
    #expect(try daemon.ctl(["background", "maps"]).status == 0)
    #expect(try daemon.apps()["maps"]?.status.state.coarse == .background)
    let activated = try daemon.ctlJSON(AppInfo.self, ["activate", "mail"])
    #expect(activated.status.state == .foregroundActive)

    // suspend / resume, seen in /proc.
    #expect(try daemon.ctl(["suspend", "maps"]).status == 0)
    #expect(processState(pid: maps) == "T")
    #expect(try daemon.ctlJSON(AppInfo.self, ["resume", "maps"]).status.state.coarse == .background)
    try daemon.waitUntil("maps to run again") { processState(pid: maps) != "T" }

    // Illegal requests fail with exit 1 and say why.
    let illegal = try daemon.ctl(["resume", "mail"])
    #expect(illegal.status == 1)
    #expect(illegal.stderr.contains("cannot resume mail"), "\(illegal.stderr)")
    #expect(try daemon.ctl(["suspend", "ghost"]).status == 1)

    // status counts apps per state.
    let status = try daemon.ctlJSON(StatusInfo.self, ["status"])
    #expect(status.appsByState["foreground"] == 1)
    #expect(status.appsByState["background"] == 1)
    #expect(status.cgroupMode == (CgroupHost.isPureV2 ? "unified" : "hybrid"))
    #expect(status.suspendMode == "signal")

    // terminate ends it gracefully (SIGTERM): normalAppExit.
    #expect(try daemon.ctl(["terminate", "maps"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "maps")
    #expect(record.cause.reason == .normalAppExit)
    #expect(record.cause.terminationReason == "JETSAM terminate")
    #expect(!isAlive(maps))
    #expect(try daemon.apps()["maps"]?.status.state.coarse == .notRunning)
    #expect(try daemon.ctlJSON(StatusInfo.self, ["status"]).recordsWritten == 1)
  }

  @Test("exits filters by app and time, and --follow streams new records")
  func exitsVerb() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    try daemon.launch("one", ["exit", "0"])
    _ = try daemon.waitForRecords(1)
    let between = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    usleep(20_000)
    try daemon.launch("two", ["exit", "3"])
    _ = try daemon.waitForRecords(2)

    let all = try daemon.ctlJSON([ExitRecord].self, ["exits"])
    #expect(all.map(\.app) == ["two", "one"], "newest first")
    #expect(all == (try daemon.recordsOnDisk()).reversed(), "exits shows exactly what the log holds")
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits", "--limit", "1"]).map(\.app) == ["two"])
    #expect(try daemon.ctl(["exits", "--limit", "0"]).status == 64)
    #expect(try daemon.ctl(["exits", "--limit", "100001"]).status == 1, "jetsamd refuses more than 100,000")
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits", "--app", "two"]).map(\.cause.reason) == [.abnormal])
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits", "--since", between]).map(\.app) == ["two"])
    #expect(try daemon.ctlJSON([ExitRecord].self, ["exits", "--since", "1h"]).count == 2)
    #expect(try daemon.ctl(["exits", "--since", "yesterday-ish"]).status == 64)

    let follower = try ExitFollower(socket: daemon.socket)
    defer { follower.stop() }
    try daemon.waitUntil("the follower's first answer") { follower.answered }
    try daemon.launch("three", ["crash", "segv"])
    try daemon.waitUntil("the followed record") { follower.records.contains { $0.app == "three" } }
    #expect(follower.records.first { $0.app == "three" }?.cause.reason == .badAccess)
  }

  /// A 1 GiB device: urgent below 500M available.
  static let phoneOf1G = """
    { device: { ram: "1G", thresholds: {
        warning: { enter: "600M", clear: "650M" }, urgent: { enter: "500M", clear: "560M" },
        critical: { enter: "100M", clear: "150M" } } },
      suspend: { backgroundGrace: null } }
    """

  @Test("pressure set, clear, allocate and release change the device's level and memory")
  func pressureVerbs() throws {
    let daemon = try DaemonHarness(config: Self.phoneOf1G)
    defer { daemon.stop() }
    var pressure = try daemon.ctlJSON(PressureInfo.self, ["pressure"])
    #expect(pressure.level == .normal)
    #expect(pressure.mode == "device")
    #expect(pressure.ramBytes == 1 << 30)
    #expect(pressure.thresholds.urgent.enter == 500 << 20)

    #expect(try daemon.ctl(["pressure", "set", "warning"]).status == 0)
    pressure = try daemon.ctlJSON(PressureInfo.self, ["pressure"])
    #expect(pressure.level == .warning)
    #expect(pressure.forcedLevel == .warning)
    #expect(try daemon.ctl(["pressure", "clear"]).status == 0)
    #expect(try daemon.ctlJSON(PressureInfo.self, ["pressure"]).forcedLevel == nil)

    // A balloon of real memory: three suspended apps, squeezed until jetsam kills in order.
    var pids: [String: Int32] = [:]
    for name in ["a", "b", "c"] {
      pids[name] = try daemon.launch(name, ["alloc", "40", "--hold"])
      try daemon.waitUntil("\(name) to hold its memory") {
        (try daemon.apps()[name]?.measured.memoryBytes ?? 0) >= 40 << 20
      }
      #expect(try daemon.ctl(["suspend", name]).status == 0)
      usleep(5_000)
    }
    let before = try daemon.ctlJSON(PressureInfo.self, ["pressure"]).availableBytes
    #expect(try daemon.ctl(["pressure", "allocate", "460M"]).status == 0)
    try daemon.waitUntil("the balloon to inflate and jetsam to settle") {
      let now = try daemon.ctlJSON(PressureInfo.self, ["pressure"])
      let records = try daemon.recordsOnDisk().count
      return now.balloonBytes == 460 << 20 && now.level < .urgent && records >= 1
    }
    let killed = try daemon.recordsOnDisk().map(\.app)
    #expect(killed == Array(["a", "b", "c"].prefix(killed.count)), "\(killed)")
    #expect(try daemon.recordsOnDisk().allSatisfy { $0.cause.reason == .memoryPressure })

    #expect(try daemon.ctl(["pressure", "release"]).status == 0)
    try daemon.waitUntil("the balloon's memory to come back") {
      try daemon.ctlJSON(PressureInfo.self, ["pressure"]).availableBytes > before - (40 << 20)
    }
  }

  @Test("pressure set --wait answers once jetsam has acted and recorded; allocate --wait once the balloon is charged")
  func pressureWait() throws {
    let daemon = try DaemonHarness(config: Self.phoneOf1G)
    defer { daemon.stop() }
    for name in ["a", "b"] {
      try daemon.launch(name, ["alloc", "20", "--hold"])
      try daemon.waitUntil("\(name) to hold its memory") {
        (try daemon.apps()[name]?.measured.memoryBytes ?? 0) >= 20 << 20
      }
      #expect(try daemon.ctl(["suspend", name]).status == 0)
    }
    // No polling after it: both suspended apps are killed and their records are on disk when it answers.
    #expect(try daemon.ctl(["pressure", "set", "urgent", "--wait"]).status == 0)
    #expect(Set(try daemon.recordsOnDisk().map(\.app)) == ["a", "b"])
    #expect(try daemon.ctl(["pressure", "clear"]).status == 0)

    #expect(try daemon.ctl(["pressure", "allocate", "300M", "--wait"]).status == 0)
    let balloon = try #require(Self.balloonProcess(of: daemon.pid), "the balloon's process")
    #expect(Self.residentMiB(balloon) >= 300, "every page touched when --wait answered")
    let late = try daemon.ctl(["pressure", "allocate", "700M", "--wait", "--timeout", "0.001"])
    #expect(late.status == 1 && late.stderr.contains("timed out"), "\(late.stderr)")
    #expect(try daemon.ctl(["pressure", "release"]).status == 0)
    #expect(try daemon.ctl(["pressure", "clear", "--wait"]).status == 64)
  }

  /// jetsamd's child running the balloon helper (`jetsam-testapp alloc N --hold`), if any.
  static func balloonProcess(of daemon: Int32) -> Int32? {
    let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    return pids.first { pid in
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")"),
        let parent = stat[stat.index(close, offsetBy: 2)...].split(separator: " ").dropFirst().first,
        Int32(parent) == daemon,
        let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
      else { return false }
      return command.split(separator: "\0").dropFirst().first == "alloc"
    }
  }

  /// A process's resident memory (VmRSS), in MiB.
  static func residentMiB(_ pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }

  @Test("bad usage exits 64 with a message; every --help prints usage and exits 0")
  func usageAndHelp() throws {
    let verbs = [
      "launch", "activate", "background", "suspend", "resume", "terminate", "kill", "ps", "exits", "pressure", "status",
      "device", "metrics", "diagnostics",
    ]
    let main = try runCommand(Binaries.current.jetsamctl, ["--help"])
    #expect(main.status == 0)
    for verb in verbs {
      #expect(main.stdout.contains(verb), "main help lacks \(verb)")
      let help = try runCommand(Binaries.current.jetsamctl, [verb, "--help"])
      #expect(help.status == 0)
      #expect(help.stdout.hasPrefix("Usage: jetsamctl \(verb)"), "\(verb) --help: \(help.stdout)")
    }
    for misuse in [
      ["frobnicate"], [], ["suspend"], ["kill", "x", "--reason", "bored"], ["launch", "x", "--memory-limit", "12Q"],
      ["pressure", "set", "dire"], ["ps", "extra"],
    ] {
      let result = try runCommand(Binaries.current.jetsamctl, ["--socket", "/nonexistent.sock"] + misuse)
      #expect(result.status == 64, "jetsamctl \(misuse): \(result.status) \(result.stderr)")
      #expect(result.stderr.hasPrefix("jetsamctl: "))
    }
    // A daemon that is not there is a failed operation, not misuse.
    let unreachable = try runCommand(Binaries.current.jetsamctl, ["--socket", "/nonexistent.sock", "ps"])
    #expect(unreachable.status == 1)
    #expect(unreachable.stderr.contains("cannot reach jetsamd"))
  }
}
