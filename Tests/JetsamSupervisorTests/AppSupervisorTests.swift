import Foundation
import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamConfig
@testable import JetsamShell

/// How the supervisor carries out the policy's actions, seen through recording fakes: what it asks of cgroups,
/// processes and signals, and what it reports back.
@Suite("App supervisor")
struct AppSupervisorTests {
  @Test("spawn: the app's cgroup with its caps, the command with the launch environment, then spawned and hello")
  func spawn() throws {
    let fixture = try SupervisorFixture()
    fixture.configure("mail", command: ["/usr/bin/mail", "--sync"], memoryLimit: 64 << 20)
    let pid = try fixture.launch("mail")
    let cgroup = try #require(fixture.cgroups.cgroup("mail"))
    #expect(cgroup.limits.memoryBytes == 64 << 20)
    #expect(cgroup.limits.pids == 64)
    let request = try #require(fixture.launcher.requests.first)
    #expect(request.arguments == ["/usr/bin/mail", "--sync"])
    #expect(request.environment.contains("JETSAM_APP=mail"))
    #expect(request.environment.contains("JETSAM_LAUNCH_REASON=fresh"))
    #expect(request.environment.contains("JETSAM_FD=3"))
    #expect(request.oomScoreAdj == 100, "the foreground band's score")
    #expect(request.passedDescriptors.map(\.target) == [3])
    #expect(fixture.reported.last == .spawned(app: "mail", pid: pid, at: fixture.loop.clock))
    let hello = try #require(fixture.openedChannels.first?.lines.first)
    #expect(hello.encoded == "hello version=1 app=mail launch=1")
  }

  @Test("a launch after an exit is told why, in its environment")
  func launchReason() throws {
    let fixture = try SupervisorFixture()
    let previous = PreviousExit(
      reason: .memoryPressure, state: .suspended, time: "2026-11-30T10:00:00Z", summary: "draft 3")
    try fixture.launch("notes", previousExit: previous)
    let environment = try #require(fixture.launcher.requests.first?.environment)
    #expect(environment.contains("JETSAM_LAUNCH_REASON=afterExit"))
    #expect(
      environment.contains("JETSAM_PREVIOUS_EXIT=reason=memoryPressure state=suspended time=2026-11-30T10:00:00Z"))
    #expect(environment.contains("JETSAM_STATE_SUMMARY=draft%203"))
  }

  @Test("a failed spawn is reported, and its cgroup goes")
  func spawnFails() throws {
    let fixture = try SupervisorFixture()
    fixture.configure("broken")
    fixture.launcher.failSpawns = true
    fixture.spawn("broken")
    guard case .spawnFailed("broken", _, _)? = fixture.reported.last else {
      Issue.record("expected spawnFailed, got \(fixture.reported)")
      return
    }
    #expect(fixture.cgroups.cgroup("broken")?.calls.contains("remove") == true)
  }

  @Test("a launch as a user waits for its lookup, in flight meanwhile, then runs as that user; an unknown user fails")
  func userLookedUpFirst() throws {
    let fixture = try SupervisorFixture()
    var nobody = SpawnUser(uid: 65534, gid: 65534, supplementaryGroups: [65534])
    nobody.name = "nobody"
    nobody.home = "/nonexistent"
    fixture.users.known = ["nobody": nobody]
    fixture.users.answersLater = true
    fixture.configure("mail")
    fixture.specs["mail"]?.user = "nobody"
    fixture.spawn("mail")
    #expect(fixture.launcher.requests.isEmpty && fixture.reported.isEmpty, "nothing starts before the user is known")
    #expect(fixture.supervisor.launches.isSpawnInFlight("mail"))
    var settled = false
    fixture.supervisor.launches.whenSpawnSettled("mail") { settled = true }
    fixture.users.answerAll()
    let request = try #require(fixture.launcher.requests.first)
    #expect(request.user == nobody)
    #expect(request.environment.contains("USER=nobody") && request.environment.contains("HOME=/nonexistent"))
    #expect(settled && !fixture.supervisor.launches.isSpawnInFlight("mail"))
    guard case .spawned("mail", _, _)? = fixture.reported.last else {
      Issue.record("expected spawned, got \(fixture.reported)")
      return
    }

    // A user the directory does not know: the launch fails, its waiters hear, nothing is left in flight.
    fixture.configure("stranger")
    fixture.specs["stranger"]?.user = "stranger"
    fixture.spawn("stranger")
    var strangerSettled = false
    fixture.supervisor.launches.whenSpawnSettled("stranger") { strangerSettled = true }
    fixture.users.answerAll()
    #expect(strangerSettled && !fixture.supervisor.launches.isSpawnInFlight("stranger"))
    guard case .spawnFailed("stranger", let message, _)? = fixture.reported.last else {
      Issue.record("expected spawnFailed, got \(fixture.reported)")
      return
    }
    #expect(message == "no user named stranger")
    #expect(fixture.cgroups.cgroup("stranger")?.calls.contains("remove") == true)
  }

  /// A fixture whose launcher answers later, as a spawner service does, asked to launch `name`.
  static func launchThroughService(_ name: String) throws -> SupervisorFixture {
    let fixture = try SupervisorFixture()
    fixture.launcher.answersLater = true
    fixture.configure(name)
    fixture.spawn(name)
    return fixture
  }

  @Test("with a spawner service: the launch is reported once answered, the end once told, not guessed")
  func spawnerService() throws {
    let fixture = try Self.launchThroughService("mail")
    #expect(fixture.reported.isEmpty && fixture.supervisor.launches.isSpawnInFlight("mail"))
    var settled = false
    fixture.supervisor.launches.whenSpawnSettled("mail") { settled = true }
    fixture.launcher.answerSpawns()
    #expect(settled && !fixture.supervisor.launches.hasSpawnsInFlight)
    guard case .spawned("mail", let pid, _)? = fixture.reported.last else {
      Issue.record("expected spawned, got \(fixture.reported)")
      return
    }
    // Its pidfd turns readable before the service has reaped it: nothing is guessed, and the pidfd (readable for
    // good now) is no longer watched.
    let pidfd = try fixture.pidfd(of: pid)
    fixture.cgroups.cgroup("mail")?.populated = false
    fixture.loop.ready(pidfd)
    #expect(fixture.reported.count == 1 && !fixture.loop.isWatched(pidfd))
    fixture.launcher.tellEnd(.exited(code: 3), of: pid)
    #expect(
      fixture.reported.last
        == .exited(app: "mail", pid: pid, end: .exited(code: 3), oomKilled: false, at: fixture.loop.clock))
  }

  @Test("a launch the spawner service answers after jetsamd began to stop is ended at once, never left running")
  func spawnAnsweredWhileClosing() throws {
    let fixture = try Self.launchThroughService("late")
    fixture.supervisor.launches.isClosing = true
    fixture.launcher.answerSpawns()
    guard case .spawnFailed("late", _, _)? = fixture.reported.last else {
      Issue.record("expected spawnFailed, got \(fixture.reported)")
      return
    }
    #expect(fixture.signals.sentThroughPidfd == [.kill])
    #expect(fixture.cgroups.cgroup("late")?.calls.contains("killAll") == true)
    #expect(fixture.supervisor.processes["late"] == nil)
  }

  @Test("suspend stops every process and is complete only once every process is seen stopped")
  func suspendCompletes() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.clearReports()
    fixture.perform(.suspend(app: "a", pid: pid))
    #expect(fixture.signals.sentThroughPidfd == [.stop], "the main process first, through its pidfd")
    fixture.supervisor.finishBatch()
    #expect(fixture.reported.isEmpty, "not stopped yet")
    #expect(fixture.signals.count(.stop, to: pid + 500) == 1, "the batch's check stops the other processes")
    #expect(fixture.signals.count(.stop, to: pid) == 0, "not told again by the check right after the batch")
    fixture.loop.advance(by: .microseconds(500))
    #expect(fixture.signals.count(.stop, to: pid) == 1, "a process still running at a later check is told again")
    fixture.signals.states = [pid: "T", pid + 500: "T"]
    let stoppedAt = fixture.loop.clock
    fixture.loop.advance(by: .milliseconds(1))
    guard case .suspendCompleted("a", _, let at)? = fixture.reported.last else {
      Issue.record("no suspendCompleted: \(fixture.reported)")
      return
    }
    #expect(at > stoppedAt && at <= fixture.loop.clock, "the instant of the check that saw it stopped")
    #expect(!fixture.supervisor.isStopPending("a"))
  }

  @Test("an app that cannot stop is checked on a backing-off timer, never waited for, and never holds up others")
  func stuckSuspend() throws {
    let fixture = try SupervisorFixture()
    let stuck = try fixture.launch("stuck")
    let other = try fixture.launch("other")
    fixture.clearReports()
    fixture.perform(.suspend(app: "stuck", pid: stuck))
    fixture.perform(.suspend(app: "other", pid: other))
    fixture.signals.states = [other: "T", other + 500: "T", stuck: "D", stuck + 500: "T"]
    fixture.supervisor.finishBatch()
    #expect(fixture.reported.count == 1)
    #expect(
      fixture.reported.first.map { if case .suspendCompleted("other", _, _) = $0 { true } else { false } } == true)
    // Ten seconds of a process in D state: a bounded number of checks (backing off to 100 ms), no report.
    let before = fixture.loop.timerFirings
    fixture.loop.advance(by: .seconds(10))
    let checks = fixture.loop.timerFirings - before
    #expect(checks > 10 && checks < 200, "\(checks) checks in 10 s")
    #expect(fixture.reported.count == 1)
    #expect(fixture.supervisor.isStopPending("stuck"))
    // It wakes up and stops: reported at the next check.
    fixture.signals.states[stuck] = "T"
    fixture.loop.advance(by: .milliseconds(100))
    #expect(fixture.reported.last.map { if case .suspendCompleted("stuck", _, _) = $0 { true } else { false } } == true)
  }

  @Test("freezer mode freezes the cgroup and completes when cgroup.events says frozen")
  func freezerSuspend() throws {
    let fixture = try SupervisorFixture(mode: .freezer)
    let pid = try fixture.launch("a")
    let cgroup = try #require(fixture.cgroups.cgroup("a"))
    fixture.clearReports()
    fixture.perform(.suspend(app: "a", pid: pid))
    #expect(cgroup.calls.contains("freeze"))
    #expect(fixture.signals.sent.isEmpty)
    fixture.supervisor.finishBatch()
    #expect(fixture.reported.isEmpty)
    cgroup.frozen = true
    fixture.loop.ready(cgroup.eventsDescriptor)
    #expect(fixture.reported.last.map { if case .suspendCompleted("a", _, _) = $0 { true } else { false } } == true)
    fixture.perform(.resume(app: "a", pid: pid))
    #expect(cgroup.calls.last == "thaw" || fixture.signals.count(.resume, to: pid) == 1)
    #expect(cgroup.calls.contains("thaw"))
  }

  @Test("resume stops the watch and continues every process")
  func resume() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.perform(.resume(app: "a", pid: pid))
    #expect(!fixture.supervisor.isStopPending("a"))
    #expect(fixture.signals.count(.resume, to: pid) == 1 && fixture.signals.count(.resume, to: pid + 500) == 1)
  }

  @Test("a child main process is asked through its pidfd; one found alone when stopped is continued through it")
  func loneChildThroughPidfd() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let cgroup = try #require(fixture.cgroups.cgroup("a"))
    cgroup.pids = [pid]
    let pidfd = try fixture.pidfd(of: pid)
    fixture.signals.childStopped[pidfd.rawValue] = false
    fixture.clearReports()
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.loop.advance(by: .microseconds(500))
    #expect(fixture.reported.isEmpty, "waitid says the main process still runs")
    #expect(fixture.signals.sentThroughPidfd == [.stop, .stop], "told again at a later check, through its pidfd")
    #expect(fixture.signals.sent.isEmpty)
    fixture.signals.childStopped[pidfd.rawValue] = true
    fixture.loop.advance(by: .milliseconds(1))
    #expect(fixture.reported.last.map { if case .suspendCompleted("a", _, _) = $0 { true } else { false } } == true)
    fixture.perform(.resume(app: "a", pid: pid))
    #expect(fixture.signals.sentThroughPidfd.last == .resume)
    #expect(fixture.signals.sent.isEmpty, "no other process to continue")
  }

  @Test("a stopped app's main process continued by someone else is reported once; jetsamd's own resume is not")
  func continuedByAnother() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let cgroup = try #require(fixture.cgroups.cgroup("a"))
    cgroup.pids = [pid]
    let pidfd = try fixture.pidfd(of: pid)
    fixture.signals.childStopped[pidfd.rawValue] = true
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.clearReports()
    fixture.supervisor.suspender.noticeContinued()
    #expect(fixture.reported.isEmpty, "still stopped")
    fixture.signals.childContinued[pidfd.rawValue] = true
    fixture.supervisor.suspender.noticeContinued()
    #expect(fixture.reported == [.continuedWhileSuspended(app: "a", pid: pid, at: fixture.loop.clock)])
    fixture.supervisor.suspender.noticeContinued()
    #expect(fixture.reported.count == 1, "reported once, until seen stopped again")
    // Stopped again, then resumed by jetsamd: its own SIGCONT is no intrusion.
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.perform(.resume(app: "a", pid: pid))
    fixture.clearReports()
    fixture.supervisor.suspender.noticeContinued()
    #expect(fixture.reported.isEmpty)
  }

  @Test("an app that had other processes when stopped is continued process by process")
  func resumeWithChildren() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let pidfd = try fixture.pidfd(of: pid)
    fixture.signals.childStopped[pidfd.rawValue] = true
    fixture.signals.states = [pid + 500: "T"]
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    #expect(!fixture.supervisor.isStopPending("a"))
    fixture.perform(.resume(app: "a", pid: pid))
    #expect(fixture.signals.count(.resume, to: pid) == 1 && fixture.signals.count(.resume, to: pid + 500) == 1)
  }

  @Test("forget drops what is kept of an ended app (its failed spawn); a running app is kept")
  func forget() throws {
    let fixture = try SupervisorFixture()
    fixture.launcher.failSpawns = true
    fixture.spawn("ended")
    #expect(fixture.supervisor.spawnFailure(of: "ended") != nil)
    fixture.launcher.failSpawns = false
    let pid = try fixture.launch("running")
    fixture.perform(.forget(app: "ended"))
    fixture.perform(.forget(app: "running"))
    #expect(fixture.supervisor.spawnFailure(of: "ended") == nil)
    #expect(fixture.supervisor.process("running", pid: pid) != nil)
  }

  @Test("kill: the decision is in the kill journal before the SIGKILL goes out")
  func killJournaledFirst() throws {
    let fixture = try SupervisorFixture()
    let journal = fixture.killJournal
    let victim = try fixture.launch("victim")
    var journaledAtSignal: [String: KillJournal.Entry]?
    fixture.signals.whenSendingThroughPidfd = { signal in
      if signal == .kill { journaledAtSignal = journal.entriesLeft() }
    }
    let decision = KillInFlight.jetsamAtCritical([
      SnapshotEntry(name: "victim", pid: victim, band: .idle, state: .suspended, secondsInBand: 5)
    ])
    fixture.perform(.kill(app: "victim", pid: victim, reason: .memoryPressure, decision: decision))
    #expect(fixture.signals.sentThroughPidfd == [.kill])
    #expect(
      journaledAtSignal == ["victim": KillJournal.Entry(app: "victim", pid: victim, launch: 1, decision: decision)])
  }

  @Test("kill: SIGKILL, cgroup.kill, the instant and memory reported; the exit only once released, reaped and empty")
  func kill() throws {
    let fixture = try SupervisorFixture()
    let victim = try fixture.launch("victim")
    let bystander = try fixture.launch("bystander")
    fixture.cgroups.cgroup("victim")?.memory = 300
    fixture.cgroups.cgroup("bystander")?.memory = 70
    fixture.clearReports()
    let snapshot = [
      SnapshotEntry(name: "victim", pid: victim, band: .idle, state: .suspended, secondsInBand: 5),
      SnapshotEntry(name: "bystander", pid: bystander, band: .foreground, state: .foreground, secondsInBand: 1),
    ]
    fixture.perform(.kill(app: "victim", pid: victim, reason: .memoryPressure, decision: .jetsamAtCritical(snapshot)))
    #expect(fixture.signals.sentThroughPidfd == [.kill])
    let cgroup = try #require(fixture.cgroups.cgroup("victim"))
    #expect(cgroup.calls.contains("killAll"))
    #expect(
      fixture.reported == [
        .killSignalled(
          app: "victim", pid: victim, at: fixture.loop.clock, memory: ["victim": 300, "bystander": 70])
      ])
    // The main process ends; its cgroup is still populated and its memory release still running.
    fixture.launcher.ends[victim] = .signaled(signal: 9, dumpedCore: false)
    let pidfd = try fixture.pidfd(of: victim)
    fixture.loop.ready(pidfd)
    #expect(fixture.reported.count == 1)
    cgroup.populated = false
    fixture.loop.ready(cgroup.eventsDescriptor)
    #expect(fixture.reported.count == 1, "the release has not returned yet")
    fixture.releaser.finishAll()
    #expect(
      fixture.reported.last
        == .exited(
          app: "victim", pid: victim, end: .signaled(signal: 9, dumpedCore: false), oomKilled: false,
          at: fixture.loop.clock))
  }

  @Test("a record is completed with measurements, written, then reported; its cgroup goes on a timer while busy")
  func recordExit() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let cgroup = try #require(fixture.cgroups.cgroup("a"))
    cgroup.memory = 40
    cgroup.busyRemovals = 2
    fixture.clearReports()
    let decided = ExitRecord(
      app: "a", pid: pid, launch: 1,
      cause: ExitCause(reason: .abnormal, terminationReason: "EXIT 3", exitCode: 3),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 2, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 1000))
    fixture.perform(.recordExit(decided))
    let written = try #require(fixture.records.records.first)
    #expect(!written.time.isEmpty)
    #expect(written.usage == ExitResourceUsage(memoryBytes: 40, peakMemoryBytes: 80, cpuSeconds: 1.5))
    #expect(fixture.reported == [.exitRecorded(written)])
    #expect(fixture.recorded == [written])
    #expect(fixture.supervisor.processes["a"] == nil)
    #expect(fixture.openedChannels.first?.closed == true)
    #expect(!cgroup.removed)
    fixture.loop.advance(by: .milliseconds(50))
    #expect(cgroup.removed, "removed once its last process left")
  }

  @Test("an ended app's cgroup is held until its record is durable; a relaunch lets it go at once")
  func cgroupHeldForRecord() throws {
    let fixture = try SupervisorFixture()
    fixture.records.holding = true
    let pid = try fixture.launch("a")
    let cgroup = try #require(fixture.cgroups.cgroup("a"))
    fixture.perform(.recordExit(Self.record("a", pid: pid)))
    #expect(fixture.supervisor.processes["a"] == nil && fixture.supervisor.records.unwritten.map(\.app) == ["a"])
    fixture.loop.advance(by: .seconds(1))
    #expect(!cgroup.removed, "removed before its record was durable")
    fixture.records.finishWrites()
    #expect(cgroup.removed, "held past its record")

    let second = try fixture.launch("b")
    let held = try #require(fixture.cgroups.cgroup("b"))
    fixture.perform(.recordExit(Self.record("b", pid: second)))
    fixture.clearReports()
    fixture.spawn("b", launch: 2)
    #expect(held.removed, "the relaunch waited for a record (a full disk could hold it for ever)")
    #expect(fixture.cgroups.made.filter { $0.name == "b" }.count == 2)
    #expect(fixture.supervisor.records.unwritten.map(\.app) == ["b"], "its record stays queued")
  }

  @Test("a relaunch waits until the last launch's cgroup is gone")
  func relaunchWaitsForRemoval() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    try #require(fixture.cgroups.cgroup("a")).busyRemovals = 3
    let decided = ExitRecord(
      app: "a", pid: pid, launch: 1,
      cause: ExitCause(reason: .normalAppExit, terminationReason: "EXIT 0", exitCode: 0),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 2, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 1000))
    fixture.perform(.recordExit(decided))
    fixture.clearReports()
    fixture.spawn("a", launch: 2)
    #expect(fixture.reported.isEmpty, "spawned before the old cgroup was removed")
    #expect(fixture.cgroups.made.count == 1)
    fixture.loop.advance(by: .milliseconds(100))
    #expect(fixture.cgroups.made.count == 2)
    #expect(fixture.reported.last.map { if case .spawned("a", _, _) = $0 { true } else { false } } == true)
  }

  @Test("a record that cannot be written is kept and written before the next one, in order")
  func unwrittenRecord() throws {
    let fixture = try SupervisorFixture()
    fixture.records.failing = true
    let first = ExitRecord(
      app: "a", pid: 1, launch: 1,
      cause: ExitCause(reason: .abnormal, terminationReason: "EXIT 1", exitCode: 1),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 0))
    var second = first
    second.app = "b"
    fixture.perform(.recordExit(first))
    #expect(fixture.records.records.isEmpty && fixture.reported.isEmpty)
    #expect(fixture.supervisor.records.unwritten.count == 1)
    fixture.records.failing = false
    fixture.perform(.recordExit(second))
    #expect(fixture.records.records.map(\.app) == ["a", "b"])
    #expect(fixture.recorded.map(\.app) == ["a", "b"])
  }

  @Test("records are written one at a time, in order, each reported only once durable")
  func recordsInFlight() throws {
    let fixture = try SupervisorFixture()
    fixture.records.holding = true
    let first = Self.record("a")
    fixture.perform(.recordExit(first))
    fixture.perform(.recordExit(Self.record("b")))
    #expect(fixture.records.inFlight.map(\.record.app) == ["a"], "the second waits for the first")
    #expect(fixture.reported.isEmpty, "nothing is reported before it is durable")
    fixture.supervisor.records.takeOver([Self.record("left")])
    fixture.records.finishWrites()
    #expect(fixture.recorded.map(\.app) == ["a"])
    #expect(fixture.records.inFlight.map(\.record.app) == ["left"], "a taken-over record goes after the one on its way")
    fixture.records.finishWrites()
    fixture.records.finishWrites()
    #expect(fixture.records.records.map(\.app) == ["a", "left", "b"])
    #expect(fixture.recorded.map(\.app) == ["a", "left", "b"])
    #expect(fixture.supervisor.records.unwritten.isEmpty)
  }

  @Test("a suspension's readings wait for its stop to be seen (the answer goes first), 50 ms at most")
  func readingsAfterTheStop() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.cgroups.cgroup("a")?.memory = 4096
    let ref = AppProcessRef(app: "a", pid: pid)
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.clearReports()
    fixture.perform(.sampleSuspendedMemory([ref]))
    #expect(fixture.reported.isEmpty, "a's processes still run: its stop is pending")
    // Seen stopped at the next check; the reading comes in the turn after it.
    for process in [pid, pid + 500] { fixture.signals.states[process] = "T" }
    fixture.loop.advance(by: .milliseconds(1))
    let memory = fixture.reported.compactMap { event -> [SuspendedMemorySample]? in
      if case .suspendedMemorySampled(let samples, _) = event { samples } else { nil }
    }
    #expect(memory == [[SuspendedMemorySample(app: "a", pid: pid, bytes: 4096)]])
    #expect(
      fixture.reported.firstIndex { if case .suspendCompleted = $0 { true } else { false } } == 0,
      "the stop is told first")

    // No stop pending: the loop's next turn. A stop that never completes holds a reading 50 ms.
    fixture.clearReports()
    fixture.perform(.sampleDiskWrites([ref]))
    #expect(fixture.reported.isEmpty)
    fixture.loop.advance(by: .zero)
    #expect(fixture.reported.count == 1)
    fixture.perform(.resume(app: "a", pid: pid))
    for process in [pid, pid + 500] { fixture.signals.states[process] = "D" }
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.supervisor.finishBatch()
    fixture.clearReports()
    fixture.perform(.sampleSuspendedMemory([ref]))
    fixture.loop.advance(by: .milliseconds(49))
    #expect(fixture.reported.isEmpty)
    fixture.loop.advance(by: .milliseconds(1))
    #expect(fixture.reported.count == 1)
  }

  @Test("a stop waits for the records: until they are written, or its grace is over with the rest kept")
  func stopWaitsForRecords() throws {
    let fixture = try SupervisorFixture()
    fixture.records.holding = true
    fixture.perform(.recordExit(Self.record("a")))
    var settled = 0
    fixture.supervisor.records.whenWritten(within: .seconds(10)) { settled += 1 }
    #expect(settled == 0, "a write is on its way")
    fixture.records.finishWrites()
    #expect(settled == 1 && fixture.recorded.map(\.app) == ["a"])

    // A stop's wait ends once: another daemon, whose disk is full.
    let full = try SupervisorFixture()
    full.records.failing = true
    full.perform(.recordExit(Self.record("b")))
    #expect(full.supervisor.records.isRetrying)
    full.supervisor.records.whenWritten(within: .seconds(2)) { settled += 1 }
    full.loop.advance(by: .seconds(1))
    #expect(settled == 1, "still within the grace")
    full.loop.advance(by: .seconds(1))
    #expect(settled == 2, "the grace is over")
    #expect(full.supervisor.records.unwritten.map(\.app) == ["b"], "kept for the next start")
  }

  static func record(_ app: String, pid: Int32 = 1) -> ExitRecord {
    ExitRecord(
      app: app, pid: pid, launch: 1,
      cause: ExitCause(reason: .abnormal, terminationReason: "EXIT 1", exitCode: 1),
      lifecycle: ExitLifecycle(state: .background, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 0))
  }

  @Test("a command hook runs in the app's cgroup; its end answers the event")
  func commandHook() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.clearReports()
    let event = AppEvent(id: 4, kind: .didEnterBackground)
    fixture.perform(.runHook(app: "a", pid: pid, event: event, command: ["/bin/flush"], workingDirectory: nil))
    let request = try #require(fixture.launcher.requests.last)
    #expect(request.arguments == ["/bin/flush"])
    #expect(request.environment.contains("JETSAM_EVENT=didEnterBackground"))
    #expect(fixture.reported.isEmpty)
    let hook = try #require(fixture.launcher.spawned.last)
    fixture.launcher.ends[hook.pid] = .exited(code: 3)
    fixture.loop.ready(hook.pidfd)
    let observed = CommandRunRecord(
      run: "hook didEnterBackground", command: ["/bin/flush"], exitCode: 3, seconds: 0)
    #expect(
      fixture.reported == [
        .commandRunObserved(app: "a", pid: pid, run: observed, at: fixture.loop.clock),
        .hookEnded(app: "a", pid: pid, event: 4, at: fixture.loop.clock),
      ], "how it ended is told for the exit record, then the event is answered")
  }

  @Test("a hook that cannot start answers its event at once rather than leave it to its deadline")
  func failedHook() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.clearReports()
    fixture.launcher.failSpawns = true
    fixture.perform(
      .runHook(
        app: "a", pid: pid, event: AppEvent(id: 2, kind: .willTerminate), command: ["/bin/save"], workingDirectory: nil)
    )
    #expect(fixture.reported.last == .hookEnded(app: "a", pid: pid, event: 2, at: fixture.loop.clock))
    guard case .commandRunObserved(_, _, let run, _) = fixture.reported.first else {
      Issue.record("no run observed: \(fixture.reported)")
      return
    }
    #expect(run.failure?.hasPrefix("could not start: ") == true && run.exitCode == nil, "\(run)")
  }

  @Test("a band change sets every process's oom_score_adj, right after the current actions")
  func scores() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.perform(.stateChanged(app: "a", from: .background, to: .suspended, band: .idle))
    #expect(fixture.signals.scores.isEmpty)
    fixture.loop.advance(by: .zero)
    #expect(fixture.signals.scores == [pid: 900, pid + 500: 900])
  }

  @Test("scores wait while stops are being checked: a suspend's answer comes first")
  func scoresWaitForStops() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    fixture.perform(.suspend(app: "a", pid: pid))
    fixture.perform(.stateChanged(app: "a", from: .background, to: .suspended, band: .idle))
    fixture.supervisor.finishBatch()
    fixture.loop.advance(by: .milliseconds(1))
    #expect(fixture.signals.scores.isEmpty, "scores written while the stop was still being checked")
    fixture.signals.states = [pid: "T", pid + 500: "T"]
    fixture.loop.advance(by: .milliseconds(20))
    #expect(fixture.signals.scores == [pid: 900, pid + 500: 900])
  }

  @Test("lines from the app become policy messages; bad ones are answered with a precise error")
  func channelLines() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let channel = try #require(fixture.openedChannels.first)
    fixture.clearReports()
    channel.write("ack event=3")
    #expect(
      fixture.reported == [.appMessage(app: "a", pid: pid, message: .acknowledge(event: 3), at: fixture.loop.clock)])
    channel.write("hello id=5")
    #expect(channel.lines.last?.encoded == "reply id=5")
    channel.write("ack x1=3")
    let error = try #require(channel.lines.last)
    #expect(error.word == "error" && error["code"] == "badLine")
    #expect(error["message"]?.contains("x1=3") == true, "\(error.encoded)")
    channel.write("fly to=moon")
    #expect(channel.lines.last?["code"] == "unknownWord")
    channel.write("stateSummary value=draft%203 id=8")
    #expect(
      fixture.reported.last
        == .appMessage(
          app: "a", pid: pid, message: .stateSummary("draft 3", requestID: 8), at: fixture.loop.clock))
    channel.write("stateDigest phase=saved value=ab validFor=2.5")
    let saved = AppMessage.stateDigest(phase: .saved, value: "ab", validFor: .milliseconds(2500), requestID: nil)
    #expect(fixture.reported.last == .appMessage(app: "a", pid: pid, message: saved, at: fixture.loop.clock))
    channel.write("stateDigest phase=resumed value=ab")
    let resumed = AppMessage.stateDigest(phase: .resumed, value: "ab", validFor: nil, requestID: nil)
    #expect(fixture.reported.last == .appMessage(app: "a", pid: pid, message: resumed, at: fixture.loop.clock))
    // A validity that is not plain positive seconds within a year, or not on a saved digest, is refused by name.
    for bad in ["validFor=inf", "validFor=-1", "validFor=0", "validFor=1e3", "validFor=99999999", "validFor=1.2.3"] {
      let reported = fixture.reported.count
      channel.write("stateDigest phase=saved value=ab id=9 \(bad)")
      #expect(fixture.reported.count == reported, "\(bad) reached the policy")
      #expect(channel.lines.last?["code"] == "badLine" && channel.lines.last?["id"] == "9")
      #expect(channel.lines.last?["message"]?.contains(bad) == true, "\(channel.lines.last?.encoded ?? "")")
    }
    channel.write("stateDigest phase=restored value=ab validFor=3")
    #expect(channel.lines.last?["message"]?.contains("phase=saved") == true)
  }

  @Test("policy replies and events are encoded on the app's channel; a stale pid gets nothing")
  func outgoingLines() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let channel = try #require(fixture.openedChannels.first)
    fixture.perform(.reply(app: "a", pid: pid, requestID: 7, .taskBegun(task: 1)))
    #expect(channel.lines.last?.encoded == "reply id=7 task=1")
    fixture.perform(
      .deliver(app: "a", pid: pid, event: AppEvent(id: 2, kind: .memoryWarning, level: .urgent)))
    #expect(channel.lines.last?.encoded == "event id=2 name=memoryWarning level=urgent")
    var back = AppEvent(id: 3, kind: .willEnterForeground)
    back.backgroundFor = .milliseconds(12_045)
    back.suspendedFor = .seconds(11)
    fixture.perform(.deliver(app: "a", pid: pid, event: back))
    #expect(
      channel.lines.last?.encoded == "event id=3 name=willEnterForeground backgroundFor=12.045 suspendedFor=11.000")
    let count = channel.lines.count
    fixture.perform(.reply(app: "a", pid: pid + 1, requestID: 9, .done))
    #expect(channel.lines.count == count)
  }
}
