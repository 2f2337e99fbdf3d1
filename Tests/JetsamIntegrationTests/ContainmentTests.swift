import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// An app is its whole cgroup: what it forks lives and dies with it, and a fork bomb stays capped.
@Suite(
  "Containment", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .timeLimit(.minutes(2)),
  .offThePool)
struct ContainmentTests {
  @Test("jetsamd's state directory is private, and it never writes through a symlink planted in it")
  func noSymlinkFollowing() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let state = daemon.jetsamd.stateDirectory
    var st = stat()
    #expect(stat(state, &st) == 0 && st.st_mode & 0o777 == 0o700, "mode \(String(st.st_mode & 0o777, radix: 8))")
    let victim = daemon.directory + "/victim"
    try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
    // An app's log, and the state file's temporary copy, replaced by links to the victim.
    #expect(symlink(victim, state + "/logs/linked.log") == 0)
    unlink(state + "/state.json.tmp")
    #expect(symlink(victim, state + "/state.json.tmp") == 0)
    let launched = try daemon.ctl(["launch", "linked", "--", Binaries.current.testapp, "idle"])
    #expect(launched.status == 1, "the launch fails rather than write through the link: \(launched.stdout)")
    // The state file is written (a launch of another app changes it) without touching the victim.
    try daemon.launch("other", ["idle"], options: ["--background"])
    try daemon.waitUntil("the state file lists the other app") {
      ((try? String(contentsOfFile: state + "/state.json", encoding: .utf8)) ?? "").contains("\"other\"")
    }
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
  }

  @Test("an app of jetsamd's user starts in a directory of its own, with a defined environment, not jetsamd's")
  func ownDirectoryAndDefinedEnvironment() throws {
    let daemon = try DaemonHarness(
      config: #"{ passEnvironment: ["LANG", "LAB_PASSED"] }"#,
      environment: ["LANG": "C.UTF-8", "LAB_PASSED": "yes", "LAB_SECRET": "s3cret"])
    defer { daemon.stop() }
    let pid = try daemon.launch("plain", ["idle"], options: ["--background", "--env", "OWN=1"])
    let directory = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
    #expect(directory == daemon.jetsamd.stateDirectory + "/apps/plain", "not the state directory itself")
    var st = stat()
    #expect(stat(directory, &st) == 0 && st.st_mode & 0o777 == 0o700)
    let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
      .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    for expected in ["LANG=C.UTF-8", "LAB_PASSED=yes", "OWN=1", "USER=root", "HOME=/root", "JETSAM_APP=plain"] {
      #expect(environment.contains(expected), "\(expected) missing: \(environment)")
    }
    #expect(!environment.contains { $0.hasPrefix("LAB_SECRET=") }, "jetsamd's environment leaked")
    // A symlink planted where an app's directory goes is not followed: the launch fails instead.
    #expect(symlink("/etc", daemon.jetsamd.stateDirectory + "/apps/linked") == 0)
    let launched = try daemon.ctl(["launch", "linked", "--", Binaries.current.testapp, "idle"])
    #expect(launched.status == 1, "\(launched.stdout)\(launched.stderr)")
  }

  @Test("appUser: apps that name no user run as it, root's ad-hoc apps too; an app's own user wins")
  func defaultAppUser() throws {
    let daemon = try DaemonHarness(
      config: """
        { appUser: "nobody", suspend: { backgroundGrace: null },
          apps: { plain: { command: ["/bin/sleep", "300"] },
                  own: { command: ["/bin/sleep", "300"], user: "root" } } }
        """)
    defer { daemon.stop() }
    func uid(_ pid: Int32) throws -> String? {
      try ProcessStatus.read(pid: pid)["Uid"]?.split(separator: "\t").first.map(String.init)
    }
    let plain = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "plain", "--background"]).status.pid)
    #expect(try uid(plain) == "65534")
    let adHoc = try daemon.launch("adhoc", ["300"], options: ["--background"], executable: "/bin/sleep")
    #expect(try uid(adHoc) == "65534", "root's ad-hoc app runs as appUser too")
    let own = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "own", "--background"]).status.pid)
    #expect(try uid(own) == "0")
  }

  /// A config declaring app `a` as `/bin/sleep SECONDS`, capped at `pids` processes, lifted to `band`.
  static func sleeperConfig(seconds: String, pids: Int, band: String) -> String {
    """
    { suspend: { backgroundGrace: null },
      apps: { a: { command: ["/bin/sleep", "\(seconds)"], pidsLimit: \(pids), band: "\(band)" } } }
    """
  }

  /// The pids cap of the cgroup `pid` is in, as the kernel has it.
  static func pidsMax(_ pid: Int32) throws -> String {
    let membership = CgroupHost.membership(of: pid)
    let path =
      CgroupHost.isPureV2
      ? CgroupHost.root + (membership[""] ?? "?") : CgroupHost.root + "/pids" + (membership["pids"] ?? "?")
    return try readTextFile(path + "/pids.max").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func commandLine(_ pid: Int32) throws -> [String] {
    try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")).split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// App `a`, started as `/bin/sleep 301` with the first config, has the second config's caps, and still its band and
  /// command; once ended, its next launch has the second config's command, caps and band.
  static func checkNewConfigApplies(_ daemon: DaemonHarness, running first: Int32) throws {
    try daemon.waitUntil("the running app's cgroup to take the new cap") { (try? pidsMax(first)) == "60" }
    #expect(try daemon.apps()["a"]?.status.pid == first, "the running process goes on")
    #expect(try daemon.apps()["a"]?.status.band == .background, "its band lift waits for its next launch")
    #expect(try commandLine(first) == ["/bin/sleep", "301"])
    #expect(try daemon.ctl(["terminate", "a"]).status == 0)
    _ = try daemon.waitForRecords(1)
    let second = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "a", "--background"]).status.pid)
    #expect(try commandLine(second) == ["/bin/sleep", "302"])
    #expect(try pidsMax(second) == "60")
    #expect(try daemon.apps()["a"]?.status.band == .audio)
  }

  @Test("a reload gives a running app its new caps at once, and its new command and band from its next launch")
  func reloadWhileRunning() throws {
    let daemon = try DaemonHarness(config: Self.sleeperConfig(seconds: "301", pids: 50, band: "background"))
    defer { daemon.stop() }
    let first = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "a", "--background"]).status.pid)
    #expect(try Self.pidsMax(first) == "50")
    try daemon.reload(Self.sleeperConfig(seconds: "302", pids: 60, band: "audio"))
    try Self.checkNewConfigApplies(daemon, running: first)
  }

  @Test("a restart with an edited config: the adopted app gets its caps at once, the rest at its next launch")
  func restartWithNewConfig() throws {
    let daemon = try DaemonHarness(config: Self.sleeperConfig(seconds: "301", pids: 50, band: "background"))
    defer { daemon.stop() }
    let first = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "a", "--background"]).status.pid)
    daemon.crash()
    try daemon.writeConfig(Self.sleeperConfig(seconds: "302", pids: 60, band: "audio"))
    try daemon.jetsamd.startAgain()
    try Self.checkNewConfigApplies(daemon, running: first)
  }

  @Test("a crash before the state was saved: the app found in the cgroup tree alone still gets the new config's caps")
  func restartWithoutStateWithNewConfig() throws {
    let daemon = try DaemonHarness(config: Self.sleeperConfig(seconds: "301", pids: 50, band: "background"))
    defer { daemon.stop() }
    let first = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "a", "--background"]).status.pid)
    daemon.crash()
    // As if it crashed before its state file was written (a loaded machine once made the test above do just that).
    unlink(daemon.stateDirectory + "/state.json")
    try daemon.writeConfig(Self.sleeperConfig(seconds: "302", pids: 60, band: "audio"))
    try daemon.jetsamd.startAgain()
    try Self.checkNewConfigApplies(daemon, running: first)
  }

  @Test(
    "apps start in a cgroup namespace of their own: their cgroups are their root",
    .enabled(if: hasCapability(capabilitySystemAdministration), "needs CAP_SYS_ADMIN to make cgroup namespaces"))
  func ownCgroupNamespace() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let seen = daemon.directory + "/seen"
    let app = try daemon.launch(
      "viewer", ["-c", #"cat /proc/self/cgroup > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 300"#, seen],
      executable: "/bin/sh")
    try daemon.waitUntil("the app's view of its cgroups") { FileManager.default.fileExists(atPath: seen) }
    func namespace(_ pid: Int32) throws -> String {
      try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/cgroup")
    }
    #expect(try namespace(app) != namespace(daemon.pid))
    // Inside, every hierarchy's path is the namespace's root; outside, the app is where jetsamd put it.
    let inside = try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n")
    #expect(!inside.isEmpty && inside.allSatisfy { $0.hasSuffix(":/") }, "\(inside)")
    #expect(CgroupHost.membership(of: app)[""]?.hasSuffix("/\(daemon.cgroupName)/viewer") == true)
  }

  @Test(
    "under nsdelegate, a root app cannot move itself out of its cgroup, and dies with it",
    .enabled(if: hasCapability(capabilitySystemAdministration), "needs CAP_SYS_ADMIN to make cgroup namespaces"),
    .enabled(
      if: CgroupHost.unifiedHasNSDelegate,
      "needs cgroup2 mounted with nsdelegate (pure-v2 systemd hosts, the v2 VM); this host's mount has none"))
  func rootAppStaysInItsCgroup() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let outcome = daemon.directory + "/outcome"
    // A root app writes its own pid into the top cgroup's cgroup.procs: where the cgroup2 mount shows it.
    let script = #"if echo $$ > "$1/cgroup.procs"; then r=moved; else r=refused; fi; echo $r > "$0"; exec sleep 300"#
    let app = try daemon.launch(
      "escaper", ["-c", script, outcome, CgroupHost.unifiedMount], executable: "/bin/sh")
    try daemon.waitUntil("the app's attempt") { FileManager.default.fileExists(atPath: outcome) }
    let result = try String(contentsOfFile: outcome, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(result == "refused")
    #expect(CgroupHost.membership(of: app)[""]?.hasSuffix("/\(daemon.cgroupName)/escaper") == true)
    #expect(try daemon.ctl(["kill", "escaper"]).status == 0)
    try daemon.waitUntil("the app to die") { !isAlive(app) }
  }

  @Test("a child forked by an app dies with it")
  func childDiesWithApp() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pidFile = daemon.directory + "/child.pid"
    let parent = try daemon.launch("forker", ["fork-child", "--pid-file", pidFile])
    var child: Int32 = 0
    try daemon.waitUntil("the child's pid file") {
      child =
        Int32(
          ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)) ?? 0
      return child > 0
    }
    #expect(isAlive(child))
    // The child is in the app's cgroup, not the daemon's.
    let cgroups = try String(contentsOfFile: "/proc/\(child)/cgroup", encoding: .utf8)
    #expect(cgroups.contains("/\(daemon.cgroupName)/forker"))
    #expect(try daemon.ctl(["kill", "forker"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == parent)
    #expect(!isAlive(parent))
    try daemon.waitUntil("the child to die") { !isAlive(child) }
  }

  @Test("a fork bomb stays inside its pids cap")
  func forkBombCapped() throws {
    let daemon = try DaemonHarness(config: "{ defaults: { pidsLimit: 40 } }")
    defer { daemon.stop() }
    let report = daemon.directory + "/forkbomb.txt"
    let pid = try daemon.launch("bomb", ["forkbomb", "--report", report])
    var text = ""
    try daemon.waitUntil("the fork bomb's report") {
      text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
      return !text.isEmpty
    }
    let forked = Int(text.split(whereSeparator: { !$0.isNumber }).first ?? "") ?? -1
    #expect(forked >= 1 && forked < 40, "forked \(forked) (report: \(text))")
    #expect(
      text.contains("EAGAIN") || text.contains("11") || text.lowercased().contains("resource temporarily unavailable"),
      "\(text)")
    #expect(isAlive(pid))
    #expect(try daemon.ctl(["kill", "bomb"]).status == 0)
    _ = try daemon.waitForRecords(1)
  }

  @Test("a CPU cap holds a spinning app to its quota")
  func cpuCap() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("spinner", ["spin"], options: ["--cpu-limit", "20"])
    usleep(200_000)
    let before = cpuSeconds(pid)
    let start = Date()
    usleep(1_500_000)
    let used = cpuSeconds(pid) - before
    let ratio = used / Date().timeIntervalSince(start)
    // A 20 % quota; generous bound for a shared, noisy machine.
    #expect(ratio < 0.4, "used \(ratio) of a core under a 20 % cap")
    #expect(ratio > 0.05, "the spinner should still run")
  }

  private func cpuSeconds(_ pid: Int32) -> Double {
    guard let ticks = (try? ProcessStat.read(pid: pid))?.cpuTicks else { return 0 }
    return Double(ticks) / Double(ProcessStat.ticksPerSecond)
  }
}
