import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// An app's end as the policy hears of it: once its main process's end is known (reaped, told by the spawner service,
/// or by the kernel for an adopted one), whatever it left in its cgroup killed, the cgroup empty and a kill's memory
/// release back; once, and with how it ended.
@Suite("App end watcher")
struct AppEndWatcherTests {
  final class Harness {
    let loop = FakeLoop()
    let launcher = FakeLauncher()
    let watcher: AppEndWatcher
    let apps = RunningApps()
    let inbox = RecordingInbox()
    /// Whose stop checks end with an app.
    let suspender: AppSuspender
    var reported: [PolicyEvent] { inbox.events }
    var memoryFreed: Int { inbox.memoryFreed }

    init() {
      let log = Logger(threshold: .error)
      suspender = AppSuspender(
        loop: loop, signals: FakeSignals(), log: log, mode: .signal, apps: apps, inbox: inbox,
        locksHeld: { $0.map { _ in [] } })
      watcher = AppEndWatcher(loop: loop, launcher: launcher, log: log, apps: apps, suspender: suspender, inbox: inbox)
    }

    /// App `name` running as `pid`, its pidfd watched as the supervisor watches it.
    func run(_ name: String, pid: Int32, pidfd: FileDescriptor = scratchDescriptor()) throws -> (
      app: AppProcess, cgroup: FakeCgroup
    ) {
      let running = runningApp(name, pid: pid, pidfd: pidfd)
      running.app.exitSource = try loop.addWatch(fd: pidfd.rawValue, events: 0) { _ in }
      apps.add(running.app)
      return running
    }

    func exited(_ name: String, pid: Int32, _ end: ProcessEnd, oomKilled: Bool = false) -> PolicyEvent {
      .exited(app: name, pid: pid, end: end, oomKilled: oomKilled, at: loop.now())
    }
  }

  @Test("reaped: what the app left is killed, its stop no longer checked; reported once the cgroup is empty, once")
  func reapedThenEmpty() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    harness.launcher.ends[10] = .exited(code: 3)
    harness.suspender.suspend("a", pid: 10)
    #expect(harness.suspender.isPending("a"))
    harness.watcher.mainProcessEnded(app)
    #expect(cgroup.calls == ["killAll"] && !harness.suspender.isPending("a"))
    #expect(!harness.loop.isWatched(app.pidfd), "its pidfd stays ready: no longer watched")
    #expect(harness.reported.isEmpty, "reported while its cgroup still had processes")
    cgroup.populated = false
    harness.watcher.reportIfGone(app)
    #expect(harness.reported == [harness.exited("a", pid: 10, .exited(code: 3))])
    #expect(harness.memoryFreed == 1)
    harness.watcher.reportIfGone(app)
    harness.watcher.mainProcessEnded(app)
    #expect(harness.reported.count == 1 && harness.memoryFreed == 1)
  }

  @Test("an OOM kill in the cgroup is told; a kill's memory release still running holds the report")
  func oomKillAndRelease() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    cgroup.populated = false
    cgroup.oomKills = 1
    app.releaseSource = FakeLoop.Source { _ in }
    harness.launcher.ends[10] = .signaled(signal: 9, dumpedCore: false)
    harness.watcher.mainProcessEnded(app)
    #expect(harness.reported.isEmpty, "reported before its memory was back")
    app.releaseSource = nil
    harness.watcher.reportIfGone(app)
    #expect(
      harness.reported == [harness.exited("a", pid: 10, .signaled(signal: 9, dumpedCore: false), oomKilled: true)])
  }

  @Test("an adopted app whose status the kernel cannot tell yet is asked again every millisecond")
  func adoptedAskedAgain() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    app.adopted = true
    cgroup.populated = false
    harness.watcher.mainProcessEnded(app)
    harness.loop.advance(by: .milliseconds(10))
    #expect(harness.reported.isEmpty && app.exitStatusAttempts == 11)
    harness.launcher.ends[10] = .exited(code: 0)
    harness.loop.advance(by: .milliseconds(1))
    #expect(harness.reported == [harness.exited("a", pid: 10, .exited(code: 0))])
  }

  @Test("an adopted app whose status never comes is reported unobserved after 50 tries")
  func adoptedUnobserved() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    app.adopted = true
    let start = harness.loop.now()
    harness.watcher.mainProcessEnded(app)
    harness.loop.advance(by: .milliseconds(48))
    #expect(harness.reported.isEmpty)
    cgroup.populated = false
    harness.loop.advance(by: .milliseconds(10))
    let givenUp = start.advanced(by: .milliseconds(49))
    #expect(harness.reported == [.exited(app: "a", pid: 10, end: .unobserved, oomKilled: false, at: givenUp)])
  }

  @Test("with a spawner service the end waits to be told, its pidfd no longer watched meanwhile")
  func toldByService() throws {
    let harness = Harness()
    harness.launcher.answersLater = true
    var spawned: SpawnedProcess?
    harness.launcher.spawn(SpawnRequest(arguments: ["/bin/app"], cgroupDirectory: nil)) { result in
      spawned = try? result.get()
    }
    harness.launcher.answerSpawns()
    let process = try #require(spawned)
    let (app, cgroup) = try harness.run("a", pid: process.pid, pidfd: process.pidfd)
    cgroup.populated = false
    harness.watcher.mainProcessEnded(app)
    #expect(harness.reported.isEmpty && app.exitSource == nil)
    harness.launcher.tellEnd(.exited(code: 2), of: process.pid)
    harness.watcher.mainProcessEnded(app)
    #expect(harness.reported == [harness.exited("a", pid: process.pid, .exited(code: 2))])
  }

  @Test("a main process still running is not taken for ended")
  func stillRunning() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer { close(ends[1]) }
    let harness = Harness()
    // A pidfd that does not read as ready: its process runs.
    let (app, cgroup) = try harness.run("a", pid: 10, pidfd: FileDescriptor(rawValue: ends[0]))
    defer { app.close() }
    harness.watcher.mainProcessEnded(app)
    #expect(app.end == nil && harness.reported.isEmpty && cgroup.calls.isEmpty)
    #expect(harness.loop.isWatched(app.pidfd))
  }

  @Test("a main process a tracer holds is reported with what the kernel tells, and reaped once the tracer lets go")
  func heldByTracer() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    cgroup.populated = false
    harness.launcher.unreapable = [10]
    harness.launcher.ends[10] = .signaled(signal: 11, dumpedCore: true)
    harness.watcher.mainProcessEnded(app)
    #expect(harness.reported == [harness.exited("a", pid: 10, .signaled(signal: 11, dumpedCore: true))])
    #expect(!harness.loop.isWatched(app.pidfd), "a pidfd ready for good is no longer watched")
    // The zombie is asked again on a timer, less and less often, until it is reaped: then no more.
    harness.loop.advance(by: .milliseconds(100))
    #expect(harness.loop.timerFirings > 2)
    harness.launcher.ends[0] = .unobserved
    harness.loop.advance(by: .seconds(2))
    let firings = harness.loop.timerFirings
    harness.loop.advance(by: .seconds(10))
    #expect(harness.loop.timerFirings == firings)
  }

  @Test("an app that ended while no daemon watched is reported once its cgroup is empty")
  func endedUnwatched() throws {
    let harness = Harness()
    let (app, cgroup) = try harness.run("a", pid: 10)
    harness.watcher.endedUnwatched(app, .unobserved)
    #expect(cgroup.calls == ["killAll"] && harness.reported.isEmpty)
    cgroup.populated = false
    harness.watcher.reportIfGone(app)
    #expect(harness.reported == [harness.exited("a", pid: 10, .unobserved)])
  }
}
