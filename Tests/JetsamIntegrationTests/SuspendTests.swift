import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Suspend and resume act on every process of an app, in both modes.
@Suite(
  "Suspend and resume", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct SuspendTests {
  @Test("signal mode stops every process of the app (state T) and resume continues them")
  func signalMode() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { mode: \"signal\", backgroundGrace: null } }")
    defer { daemon.stop() }
    let pidFile = daemon.directory + "/child.pid"
    let parent = try daemon.launch("app", ["fork-child", "--pid-file", pidFile])
    var child: Int32 = 0
    try daemon.waitUntil("the child's pid") {
      child =
        Int32(
          ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)) ?? 0
      return child > 0
    }
    #expect(try daemon.ctl(["suspend", "app"]).status == 0)
    #expect(processState(pid: parent) == "T")
    #expect(processState(pid: child) == "T")
    let info = try #require(try daemon.apps()["app"])
    #expect(info.status.state.coarse == .suspended)
    #expect(info.status.band == .idle)
    // The kernel's OOM killer would agree with jetsam: a suspended app is its first choice. (Scores follow
    // right after the reply.)
    try daemon.waitUntil("the suspended band's oom_score_adj") { oomScore(parent) == 900 && oomScore(child) == 900 }

    #expect(try daemon.ctl(["resume", "app"]).status == 0)
    try daemon.waitUntil("both processes running again") {
      processState(pid: parent) != "T" && processState(pid: child) != "T"
    }
    #expect(try daemon.apps()["app"]?.status.state.coarse == .background)
    try daemon.waitUntil("the background band's score") { oomScore(parent) == 660 }
    #expect(try daemon.ctl(["activate", "app"]).status == 0)
    try daemon.waitUntil("the foreground band's score") { oomScore(parent) == 100 }
  }

  // Through the spawner service too: jetsamd is then not the app's parent, and the service tells it.
  @Test("a suspended app that another process continues is stopped again, and ps counts it", arguments: [false, true])
  func continuedByAnother(throughSpawner: Bool) throws {
    let spawner = throughSpawner ? try SpawnerServiceTests.Spawner() : nil
    defer { spawner?.stop() }
    let spawnerSocket = spawner.map { ", spawnerSocket: \"\($0.socket)\"" } ?? ""
    let daemon = try DaemonHarness(config: "{ suspend: { mode: \"signal\", backgroundGrace: null }\(spawnerSocket) }")
    defer { daemon.stop() }
    let pid = try daemon.launch("app", ["idle"], options: ["--background"])
    #expect(try daemon.ctl(["suspend", "app"]).status == 0)
    #expect(processState(pid: pid) == "T")
    for round in 1...2 {
      // SIGCONT wakes the process before kill returns; jetsamd hears of it through SIGCHLD, not from ps.
      #expect(kill(pid, SIGCONT) == 0)
      try daemon.waitUntil("the app stopped again (round \(round))") { processState(pid: pid) == "T" }
      let info = try #require(try daemon.apps()["app"])
      #expect(info.status.state.coarse == .suspended)
      #expect(info.status.continuedByOthers == round)
    }
    // Resumed by jetsamd itself: no intrusion.
    #expect(try daemon.ctl(["resume", "app"]).status == 0)
    try daemon.waitUntil("running again") { processState(pid: pid) != "T" }
    usleep(200_000)
    #expect(processState(pid: pid) != "T", "jetsamd's own SIGCONT is not taken for an intrusion")
    #expect(try daemon.apps()["app"]?.status.continuedByOthers == 2)
  }

  @Test("a SIGCONT whose SIGCHLD merges into another child's pending one is still noticed, and the app stopped again")
  func continuedBehindAnotherChildsSignal() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { mode: \"signal\", backgroundGrace: null } }")
    defer { daemon.stop() }
    let pid = try daemon.launch("app", ["idle"], options: ["--background"])
    let other = try daemon.launch("other", ["idle"], options: ["--background"])
    #expect(try daemon.ctl(["suspend", "app"]).status == 0)
    #expect(processState(pid: pid) == "T")
    // With jetsamd stopped, another child's end leaves a SIGCHLD pending (CLD_KILLED); the SIGCONT's SIGCHLD then
    // merges into it, and jetsamd reads one signal, with the first one's code.
    let jetsamd = daemon.jetsamd.pid
    #expect(kill(jetsamd, SIGSTOP) == 0)
    defer { kill(jetsamd, SIGCONT) }
    try daemon.waitUntil("jetsamd stopped") { processState(pid: jetsamd) == "T" }
    #expect(kill(other, SIGKILL) == 0)
    try daemon.waitUntil("the other app ended, unreaped") { processState(pid: other) == "Z" }
    #expect(kill(pid, SIGCONT) == 0)
    try daemon.waitUntil("the app running again") { processState(pid: pid) != "T" }
    #expect(kill(jetsamd, SIGCONT) == 0)
    // Watched through the process's own state only: `ps` would look for continuations itself.
    try daemon.waitUntil("the app stopped again") { processState(pid: pid) == "T" }
    #expect(try daemon.apps()["app"]?.status.continuedByOthers == 1)
  }

  private func oomScore(_ pid: Int32) -> Int? {
    (try? oomScoreAdj(pid: pid)).map(Int.init)
  }

  @Test("freezer mode freezes the app's cgroup (state S, cgroup.events frozen 1) and thaws it")
  func freezerMode() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { mode: \"freezer\", backgroundGrace: null } }")
    defer { daemon.stop() }
    let pid = try daemon.launch("app", ["spin"])
    #expect(try daemon.ctl(["suspend", "app"]).status == 0)
    let events = try frozenFlag(of: pid)
    #expect(events == true)
    let before = cpuTicks(pid)
    usleep(300_000)
    #expect(cpuTicks(pid) == before, "a frozen spinner used CPU")
    #expect(try daemon.ctl(["resume", "app"]).status == 0)
    #expect(try frozenFlag(of: pid) == false)
    try daemon.waitUntil("the spinner to run again") { cpuTicks(pid) > before }
  }

  @Test("an app left in the background is suspended after the background grace")
  func backgroundGrace() throws {
    // Long enough (stretched by the slowdown) that two jetsamctl runs come well within it.
    let grace = 2 * TestTiming.slowdown
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: \"\(grace)s\" } }")
    defer { daemon.stop() }
    let first = try daemon.launch("first", ["idle"])
    try daemon.launch("second", ["idle"])  // takes the one foreground slot: first goes to the background
    #expect(try daemon.apps()["first"]?.status.state.coarse == .background)
    // The grace's suspend is the policy's own: `ps` shows it stopping until every process is seen stopped.
    try daemon.waitUntil("first to be suspended") {
      let info = try daemon.apps()["first"]
      return info?.status.state.coarse == .suspended && info?.measured.stopping == false
    }
    #expect(processState(pid: first) == "T")
  }

  @Test("pipelined suspends on one connection are each answered once the app is stopped, in order")
  func pipelinedSuspends() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    // More apps than fit in one answer's wait: the later requests wait in the socket, unread, not in jetsamd.
    let names = (0..<80).map { String(format: "app%02d", $0) }
    let client = try daemon.jetsamd.client()
    var pids: [String: Int32] = [:]
    for name in names {
      var launch = ControlRequest(verb: .launch, app: name)
      launch.command = [Binaries.current.testapp, "idle"]
      launch.background = true
      pids[name] = try #require(try client.send(launch).app?.status.pid)
    }
    let answers = try client.pipeline(names.map { try client.encode(ControlRequest(verb: .suspend, app: $0)) })
    #expect(answers.map { $0.app?.status.name } == names)
    #expect(
      answers.allSatisfy { $0.ok && $0.app?.status.state.coarse == .suspended && $0.app?.measured.stopping == false })
    let running = names.filter { processState(pid: pids[$0]!) != "T" }
    #expect(running.isEmpty, "answered suspended but not stopped: \(running)")
  }

  /// `frozen` from the app's cgroup.events, found through /proc/PID/cgroup (the unified hierarchy's line).
  private func frozenFlag(of pid: Int32) throws -> Bool? {
    let path = try #require(CgroupHost.membership(of: pid)[""])
    let events = try String(contentsOfFile: "\(CgroupHost.unifiedMount)\(path)/cgroup.events", encoding: .utf8)
    return events.split(separator: "\n").first { $0.hasPrefix("frozen ") }.map { $0.hasSuffix("1") }
  }

  private func cpuTicks(_ pid: Int32) -> Int {
    (try? ProcessStat.read(pid: pid))?.cpuTicks.map { Int($0) } ?? -1
  }
}
