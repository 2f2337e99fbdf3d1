import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSockets
import Testing

@testable import JetsamShell

/// How a suspended app's sockets are destroyed, without root or a kernel: `jetsam-sockets` started through a fake
/// launcher (which writes what the tool would print), its output read on a worker the test holds, the outcome
/// handed back on the loop.
@Suite("Socket defuncter")
struct SocketDefuncterTests {
  static let toolPath = "/usr/libexec/jetsam/jetsam-sockets"
  static let socket = DefunctedSocket(
    protocol: "tcp", local: "127.0.0.1:40000", remote: "127.0.0.1:80", state: "established", pid: 1500)
  /// A process the fixture's presence check finds holding no network socket.
  static let socketless: Int32 = 77

  /// A defuncter on fakes: the tool prints `outcome`. The check whether the processes may hold a network socket
  /// (every one but ``socketless`` may) runs once the test finishes `worker`, and the tool's output is read at the
  /// next finish.
  final class Fixture {
    let loop: FakeLoop
    let launcher = FakeLauncher()
    let worker = FakeBackground()
    let defuncter: SocketDefuncter
    /// Whether a stop is pending: the processes are listed once none is.
    var stopsPending = false
    lazy var afterStops = AfterStopChecks(loop: loop, isIdle: { [unowned self] in !self.stopsPending })
    var outcome = NetworkSocketDestruction.Outcome(sockets: [SocketDefuncterTests.socket])

    init(loop: FakeLoop = FakeLoop()) {
      self.loop = loop
      // The tool's write end is closed once its launch is answered: the output is read after that, as the real
      // helper thread does.
      worker.holding = true
      defuncter = SocketDefuncter(
        loop: loop, launcher: launcher, toolPath: SocketDefuncterTests.toolPath, worker: worker,
        mayHoldNetworkSockets: { $0 != [SocketDefuncterTests.socketless] })
      launcher.nextPID = 9000
      launcher.output = { [unowned self] _ in SocketToolOutput.text(of: self.outcome) }
    }
  }

  @Test(
    "jetsam-sockets is started through the launcher on the app's processes, keeping jetsamd's; what it printed comes back"
  )
  func destroysThroughTheTool() {
    let fixture = Fixture()
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    fixture.defuncter.defunct(
      app: "a", pid: 10, processes: { [10, 11] }, after: fixture.afterStops, then: { outcomes.append($0) })
    #expect(fixture.worker.runs == 0, "listed in the loop's next turn, after the answers of this one")
    fixture.loop.advance(by: .zero)
    // Whether they may hold a network socket is looked at first, off the loop.
    #expect(fixture.launcher.requests.isEmpty && fixture.defuncter.isDefuncting(app: "a", pid: 10))
    fixture.worker.finish()
    #expect(
      fixture.launcher.requests.map(\.arguments) == [
        [Self.toolPath, "--except-held-by", String(getpid()), "10", "11"]
      ])
    #expect(fixture.defuncter.isDefuncting(app: "a", pid: 10) && outcomes.isEmpty)
    fixture.worker.finish()
    #expect(outcomes == [fixture.outcome])
    #expect(!fixture.defuncter.isDefuncting(app: "a", pid: 10))
    // The tool is reaped once it has ended, its status dropped.
    #expect(fixture.launcher.discarded == [9000])
  }

  @Test("processes that cannot be listed are the problem reported; no process, no tool")
  func listingFails() {
    let fixture = Fixture()
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    fixture.defuncter.defunct(
      app: "a", pid: 10, processes: { throw SystemError(code: ENOENT, "open cgroup.procs") }, after: fixture.afterStops,
      then: { outcomes.append($0) })
    fixture.defuncter.defunct(
      app: "a", pid: 10, processes: { [] }, after: fixture.afterStops, then: { outcomes.append($0) })
    fixture.loop.advance(by: .zero)
    #expect(fixture.launcher.requests.isEmpty && fixture.worker.runs == 0)
    #expect(outcomes.map(\.problem) == ["listing its processes: open cgroup.procs: No such file or directory", nil])
    #expect(outcomes.allSatisfy { $0.sockets.isEmpty })
  }

  @Test("processes that hold no network socket start no tool: nothing was destroyed, and a resume need not wait")
  func noNetworkSocket() {
    let fixture = Fixture()
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    fixture.defuncter.defunct(
      app: "a", pid: 10, processes: { [Self.socketless] }, after: fixture.afterStops, then: { outcomes.append($0) })
    fixture.loop.advance(by: .zero)
    #expect(fixture.defuncter.isDefuncting(app: "a", pid: 10), "a resume waits for the look as well")
    fixture.worker.finish()
    #expect(fixture.launcher.requests.isEmpty && fixture.worker.runs == 1)
    #expect(outcomes == [NetworkSocketDestruction.Outcome()])
    #expect(!fixture.defuncter.isDefuncting(app: "a", pid: 10))
  }

  @Test("while stops are pending the processes are listed later, at the latest after 50 ms; a resume waits meanwhile")
  func listedOnceStopsAreSeen() {
    let fixture = Fixture()
    fixture.stopsPending = true
    var listed = 0
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    let list = { () -> [Int32] in
      listed += 1
      return [Self.socketless]
    }
    fixture.defuncter.defunct(app: "a", pid: 10, processes: list, after: fixture.afterStops) { outcomes.append($0) }
    #expect(listed == 0 && fixture.defuncter.isDefuncting(app: "a", pid: 10), "a resume waits for it already")
    fixture.stopsPending = false
    fixture.afterStops.stopsSeen()
    #expect(listed == 0, "in the loop's next turn, after what the check let out")
    fixture.loop.advance(by: .zero)
    #expect(listed == 1)
    fixture.worker.finish()
    #expect(outcomes == [NetworkSocketDestruction.Outcome()] && !fixture.defuncter.isDefuncting(app: "a", pid: 10))

    // A stop that stays pending (a process in uninterruptible sleep) holds the listing 50 ms, no longer.
    fixture.stopsPending = true
    fixture.defuncter.defunct(app: "b", pid: 20, processes: list, after: fixture.afterStops) { outcomes.append($0) }
    fixture.loop.advance(by: .milliseconds(49))
    #expect(listed == 1)
    fixture.loop.advance(by: .milliseconds(1))
    #expect(listed == 2)
  }

  @Test("a tool that cannot start is the problem reported, at once")
  func toolFails() {
    let fixture = Fixture()
    fixture.launcher.failSpawns = true
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    fixture.defuncter.defunct(
      app: "a", pid: 10, processes: { [10] }, after: fixture.afterStops, then: { outcomes.append($0) })
    fixture.loop.advance(by: .zero)
    fixture.worker.finish()
    #expect(outcomes.count == 1 && outcomes[0].sockets.isEmpty)
    #expect(outcomes.first?.problem?.hasPrefix("jetsam-sockets could not start:") == true)
    #expect(!fixture.defuncter.isDefuncting(app: "a", pid: 10))
  }
}

/// `defunctSockets` and `socketsDefuncted` carried out as the daemon carries them out (``ActionDispatch``), and a
/// resume that comes while the sockets are still being destroyed.
@Suite("Socket defunct actions")
struct SocketDefunctActionTests {
  /// A supervisor whose suspender defuncts through `tool`; app `a` launched and suspended.
  final class Fixture {
    let apps: SupervisorFixture
    let tool: SocketDefuncterTests.Fixture
    let pid: Int32

    init() throws {
      apps = try SupervisorFixture()
      tool = SocketDefuncterTests.Fixture(loop: apps.loop)
      apps.supervisor.suspender.sockets = tool.defuncter
      pid = try apps.launch("a")
      apps.perform(.suspend(app: "a", pid: pid))
      // Seen stopped at the batch's check: nothing waits for a stop (``AfterStopChecks``).
      for process in [pid, pid + 500] { apps.signals.states[process] = "T" }
      apps.supervisor.finishBatch()
      apps.clearReports()
    }

    /// Lets the look for network sockets, then the tool's run, report back.
    func finishTool() {
      tool.worker.finish()
      tool.worker.finish()
    }

    /// How many times app `a`'s main process was continued (it is not alone in its cgroup: by pid).
    var resumes: Int { apps.signals.count(.resume, to: pid) }
  }

  @Test("defunctSockets destroys the sockets of every process of the app's cgroup and reports what it destroyed")
  func carriedOut() throws {
    let fixture = try Fixture()
    let (apps, pid) = (fixture.apps, fixture.pid)
    apps.perform(.defunctSockets(app: "a", pid: pid))
    apps.loop.advance(by: .zero)
    fixture.finishTool()
    #expect(fixture.tool.launcher.requests.map { Array($0.arguments.suffix(2)) } == [["\(pid)", "\(pid + 500)"]])
    guard case .socketsDefuncted("a", pid, [SocketDefuncterTests.socket], nil, _)? = apps.reported.last else {
      Issue.record("no socketsDefuncted: \(apps.reported)")
      return
    }
    // An earlier launch's pid asks nothing.
    apps.perform(.defunctSockets(app: "a", pid: pid + 1))
    #expect(fixture.tool.launcher.requests.count == 1)
    apps.perform(.socketsDefuncted(app: "a", pid: pid, sockets: [SocketDefuncterTests.socket], problem: nil))
    #expect(apps.announcements.told.last == "sockets a 1")
  }

  @Test("a resume while the sockets are being destroyed goes out once that is done, after it is reported")
  func resumeWaitsForTheDefunct() throws {
    let fixture = try Fixture()
    let (apps, pid) = (fixture.apps, fixture.pid)
    apps.perform(.defunctSockets(app: "a", pid: pid))
    apps.loop.advance(by: .zero)
    apps.perform(.resume(app: "a", pid: pid))
    #expect(fixture.resumes == 0, "the app stays stopped while its sockets are destroyed")
    apps.loop.advance(by: .seconds(1))
    #expect(fixture.resumes == 0)
    fixture.finishTool()
    #expect(fixture.resumes == 1)
    #expect(apps.reported.contains { if case .socketsDefuncted("a", pid, _, _, _) = $0 { true } else { false } })
    // The bound it had is over: no second resume at its deadline.
    apps.loop.advance(by: .seconds(5))
    #expect(fixture.resumes == 1)
  }

  @Test("a defunct that never reports holds the resume only until its budget and a second")
  func resumeAtTheBudget() throws {
    let fixture = try Fixture()
    let (apps, pid) = (fixture.apps, fixture.pid)
    apps.perform(.defunctSockets(app: "a", pid: pid))
    apps.loop.advance(by: .zero)
    apps.perform(.resume(app: "a", pid: pid))
    apps.loop.advance(by: fixture.tool.defuncter.budget)
    #expect(fixture.resumes == 0)
    apps.loop.advance(by: .seconds(1))
    #expect(fixture.resumes == 1)
    // Its late report continues nothing again.
    fixture.finishTool()
    #expect(fixture.resumes == 1)
  }

  @Test("a resume held back is dropped by a suspend or a kill that follows it: the app never runs meanwhile")
  func heldResumeDropped() throws {
    let fixture = try Fixture()
    let (apps, pid) = (fixture.apps, fixture.pid)
    apps.perform(.defunctSockets(app: "a", pid: pid))
    apps.loop.advance(by: .zero)
    apps.perform(.resume(app: "a", pid: pid))
    apps.perform(.suspend(app: "a", pid: pid))
    fixture.finishTool()
    apps.loop.advance(by: .seconds(5))
    #expect(fixture.resumes == 0)
    // No defunct under way: a resume goes out at once.
    apps.perform(.resume(app: "a", pid: pid))
    #expect(fixture.resumes == 1)
  }
}
