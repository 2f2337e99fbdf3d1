import JetsamConfig
import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamShell

/// Suspending and resuming, seen through the signals and the cgroup: what is told to stop or go on, and what the
/// policy hears of it (a completed stop, a continuation jetsamd did not send).
@Suite("App suspender")
struct AppSuspenderTests {
  final class Harness {
    let loop = FakeLoop()
    let signals = FakeSignals()
    let suspender: AppSuspender
    let apps = RunningApps()
    let inbox = RecordingInbox()
    var reported: [PolicyEvent] { inbox.events }
    /// The locks each app holds, as the stop watcher is told; and which apps it was asked about, check by check.
    var locks: [String: [HeldLock]] = [:]
    var locksAsked: [[String]] = []

    init(mode: SuspendConfig.Mode = .signal) {
      weak var harness: Harness?
      suspender = AppSuspender(
        loop: loop, signals: signals, log: Logger(threshold: .error), mode: mode, apps: apps, inbox: inbox,
        locksHeld: { apps in
          harness?.locksAsked.append(apps.map(\.name))
          return apps.map { harness?.locks[$0.name] ?? [] }
        })
      harness = self
    }

    /// App `name` running as `pid` with `others` in its cgroup.
    @discardableResult
    func run(_ name: String, pid: Int32, others: [Int32] = []) -> (app: AppProcess, cgroup: FakeCgroup) {
      let running = runningApp(name, pid: pid, others: others)
      apps.add(running.app)
      return running
    }
  }

  @Test("signal mode: the main process through its pidfd; the batch's check stops the rest and reports the stop")
  func signalStop() {
    let harness = Harness()
    harness.run("a", pid: 10, others: [11])
    let start = harness.loop.now()
    harness.suspender.suspend("a", pid: 10)
    #expect(harness.signals.sentThroughPidfd == [.stop] && harness.signals.sent.isEmpty)
    #expect(harness.suspender.isPending("a") && !harness.suspender.isIdle)
    harness.suspender.checkNow()
    #expect(harness.signals.count(.stop, to: 11) == 1 && harness.reported.isEmpty)
    #expect(harness.signals.count(.stop, to: 10) == 0, "the main process was told microseconds ago, through its pidfd")
    harness.loop.advance(by: .microseconds(200))
    #expect(harness.signals.count(.stop, to: 10) == 1, "still running at a later check: told again")
    harness.signals.states = [10: "T", 11: "t"]
    harness.loop.advance(by: .milliseconds(1))
    // Seen at the check after that, 400 µs later, and reported with that instant.
    #expect(harness.reported == [.suspendCompleted(app: "a", at: start.advanced(by: .microseconds(600)))])
    #expect(harness.suspender.isIdle)
  }

  @Test("a stop seen complete carries the locks its app holds then, asked once for every app the check saw stopped")
  func stopCarriesLocks() {
    let harness = Harness()
    harness.run("a", pid: 10)
    harness.run("b", pid: 20)
    harness.run("c", pid: 30)
    let lock = HeldLock(path: "/data/db", type: "posix", access: "write", pid: 20)
    harness.locks = ["b": [lock]]
    for (name, pid) in [("a", Int32(10)), ("b", 20), ("c", 30)] { harness.suspender.suspend(name, pid: pid) }
    harness.signals.states = [10: "T", 20: "T"]
    harness.suspender.checkNow()
    #expect(harness.locksAsked == [["a", "b"]], "c is still running: its locks are not asked for yet")
    let at = harness.loop.now()
    #expect(
      harness.reported == [
        .suspendCompleted(app: "a", locks: [], at: at), .suspendCompleted(app: "b", locks: [lock], at: at),
      ])
  }

  @Test("an app whose processes cannot be told to stop (it is ending) is not watched")
  func cannotStop() {
    let harness = Harness()
    harness.run("a", pid: 10)
    harness.signals.failPidfdSignals = true
    harness.suspender.suspend("a", pid: 10)
    #expect(!harness.suspender.isPending("a") && harness.suspender.isIdle)
    harness.suspender.suspend("gone", pid: 99)
    #expect(harness.suspender.isIdle)
  }

  @Test("forgetting an app ends the checks of its stop: nothing is reported")
  func forget() {
    let harness = Harness()
    harness.run("a", pid: 10)
    harness.suspender.suspend("a", pid: 10)
    harness.suspender.forget("a")
    harness.signals.states = [10: "T"]
    harness.suspender.checkNow()
    harness.loop.advance(by: .seconds(1))
    #expect(harness.reported.isEmpty && harness.suspender.isIdle)
  }

  @Test("an app frozen before a reload switched to signals is thawed, not signalled")
  func modeChangedWhileFrozen() {
    let harness = Harness(mode: .freezer)
    let (_, cgroup) = harness.run("a", pid: 10, others: [11])
    harness.suspender.suspend("a", pid: 10)
    #expect(cgroup.calls == ["freeze"] && harness.signals.sentThroughPidfd.isEmpty)
    harness.suspender.mode = .signal
    harness.suspender.resume("a", pid: 10)
    #expect(cgroup.calls == ["freeze", "thaw"])
    #expect(harness.signals.sent.isEmpty && harness.signals.sentThroughPidfd.isEmpty)
    #expect(!harness.suspender.isPending("a"))
  }

  @Test("an adopted app's main process is judged by its state in /proc, not by waitid on its pidfd")
  func adopted() {
    let harness = Harness()
    let (app, _) = harness.run("a", pid: 10)
    app.adopted = true
    // waitid would say running, but the process is no child of this daemon's: its word does not count.
    harness.signals.childStopped[app.pidfd.rawValue] = false
    harness.signals.states = [10: "T"]
    #expect(harness.suspender.isStopped(app))
    harness.signals.states = [10: "R"]
    #expect(!harness.suspender.isStopped(app))
    #expect(harness.signals.count(.stop, to: 10) == 1, "told again to stop, by pid")
  }

  @Test("someone else's SIGCONT to a stopped app is reported once; adopted apps and apps jetsamd did not stop are not")
  func continuedByAnother() {
    let harness = Harness()
    let (stopped, _) = harness.run("a", pid: 10)
    let (adopted, _) = harness.run("b", pid: 20)
    let (running, _) = harness.run("c", pid: 30)
    stopped.stop.signalStopped = true
    adopted.stop.signalStopped = true
    adopted.adopted = true
    for app in [stopped, adopted, running] { harness.signals.childContinued[app.pidfd.rawValue] = true }
    harness.suspender.noticeContinued()
    #expect(harness.reported == [.continuedWhileSuspended(app: "a", pid: 10, at: harness.loop.now())])
    harness.suspender.noticeContinued()
    #expect(harness.reported.count == 1, "reported once until seen stopped again")
  }

  @Test("a SIGCHLD of a stop or an end has the stopped apps looked at once, shortly, for a continuation merged in")
  func continuedBehindAnotherSignal() {
    let harness = Harness()
    let (app, _) = harness.run("a", pid: 10)
    harness.signals.childContinued[app.pidfd.rawValue] = true
    harness.suspender.noticeContinuedSoon()
    harness.loop.advance(by: AppSuspender.continuedCheckDelay)
    #expect(harness.reported.isEmpty, "an app jetsamd did not stop is not stopped again")
    app.stop.signalStopped = true
    harness.signals.childContinued[app.pidfd.rawValue] = true
    // A burst of SIGCHLDs (apps stopping, one ending) with someone's SIGCONT merged into one of them.
    for _ in 0..<100 { harness.suspender.noticeContinuedSoon() }
    #expect(harness.reported.isEmpty, "not looked at on the spot")
    harness.loop.advance(by: AppSuspender.continuedCheckDelay)
    #expect(harness.reported == [.continuedWhileSuspended(app: "a", pid: 10, at: harness.loop.now())])
    #expect(harness.loop.timerFirings == 2, "one look for the whole burst")
    // Stopped again by jetsamd, and another burst later: looked at again.
    app.stop.signalStopped = true
    harness.suspender.noticeContinuedSoon()
    harness.loop.advance(by: AppSuspender.continuedCheckDelay)
    #expect(harness.reported.count == 2 && harness.loop.timerFirings == 3)
  }

  @Test("the spawner service's word that an app was continued is reported only for an app jetsamd stopped")
  func continuedThroughService() {
    let harness = Harness()
    let (app, _) = harness.run("a", pid: 10)
    harness.suspender.continuedByOthers(app)
    #expect(harness.reported.isEmpty, "not stopped by jetsamd: nothing to undo")
    app.stop.signalStopped = true
    harness.suspender.continuedByOthers(app)
    harness.suspender.continuedByOthers(app)
    #expect(harness.reported == [.continuedWhileSuspended(app: "a", pid: 10, at: harness.loop.now())])
  }

  @Test("resume continues every process of the cgroup, or the main one alone through its pidfd if it was alone")
  func resume() {
    let harness = Harness()
    let (app, _) = harness.run("a", pid: 10, others: [11])
    harness.suspender.resume("a", pid: 10)
    #expect(harness.signals.count(.resume, to: 10) == 1 && harness.signals.count(.resume, to: 11) == 1)
    #expect(harness.signals.sentThroughPidfd.isEmpty)
    app.stop.stoppedAlone = true
    app.stop.signalStopped = true
    harness.suspender.resume("a", pid: 10)
    #expect(harness.signals.sentThroughPidfd == [.resume] && harness.signals.sent.count == 2)
    #expect(!app.stop.stoppedAlone && !app.stop.signalStopped, "a later SIGCONT is no longer someone else's")
  }
}
