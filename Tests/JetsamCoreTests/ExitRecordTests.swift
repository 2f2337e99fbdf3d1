import JetsamCore
import JetsamValues
import Testing

@Suite struct ExitRecordTests {
  @Test func aCrashInTheForegroundIsRecordedAndTerminatesTheApp() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    policy.sample(Available.warning, at: t(2))
    let actions = policy.exits("a", sigsegv, at: t(7, ms: 500))
    var expected = ExitRecord(
      app: "a", pid: 10, launch: 1,
      cause: ExitCause(
        reason: .badAccess, terminationReason: "SIGNAL 0xb", endedBy: .signal,
        signal: Signal.segmentationFault.rawValue),
      lifecycle: ExitLifecycle(state: .foreground, aliveSeconds: 6.5, stateSeconds: 6.5),
      pressure: ExitPressure(level: .warning, availableBytes: Available.warning))
    var metrics = LaunchMetrics()
    metrics.foregroundSeconds = 6.5
    expected.launchMetrics = metrics
    #expect(
      actions == [
        .stateChanged(app: "a", from: .foregroundActive, to: .terminated, band: .idle), .recordExit(expected),
      ])
    let app = try #require(policy.app(named: "a"))
    #expect(app.state == .terminated)
    #expect(app.pid == nil)
    #expect(app.spawnedAt == nil)
    #expect(app.band == .idle)
  }

  @Test func stateSecondsCountFromTheLastStateChange() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    _ = try policy.handle(.moveToBackground(app: "a", at: t(4)))
    let record = try #require(policy.exits("a", .exited(code: 2), at: t(10)).records.first)
    #expect(record.lifecycle.state == .background)
    #expect(record.lifecycle.aliveSeconds == 9)
    #expect(record.lifecycle.stateSeconds == 6)
    #expect(record.cause.exitCode == 2)
    #expect(record.cause.signal == nil)
    #expect(record.cause.terminationReason == "EXIT 2")
    #expect(record.pressure.level == .normal)
    #expect(record.pressure.availableBytes == 0)
  }

  @Test func suspendedSecondsCountFromWhenTheLastProcessStopped() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1), stoppedAt: t(3))
    let record = try #require(policy.exits("a", .exited(code: 0), at: t(10)).records.first)
    #expect(record.lifecycle.state == .suspended)
    #expect(record.lifecycle.stateSeconds == 7)
    #expect(record.lifecycle.aliveSeconds == 9)
  }

  @Test func aJetsamKillCarriesTheSnapshotInKillOrder() throws {
    var policy = JetsamPolicy()
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    try policy.start("music", pid: 11, at: t(2), floor: .audio)
    try policy.start("bg", pid: 12, at: t(3))
    try policy.startSuspended("s2", pid: 13, at: t(4), stoppedAt: t(6))
    try policy.startSuspended("s1", pid: 14, at: t(4), stoppedAt: t(5))
    _ = try policy.handle(.configure(app: "idle", bandFloor: nil, launchCount: 0))

    let kill = try #require(policy.sample(Available.urgent, at: t(10)).jetsamKills.first)
    let expectedSnapshot = [
      SnapshotEntry(name: "s1", pid: 14, band: .idle, state: .suspended, secondsInBand: 5),
      SnapshotEntry(name: "s2", pid: 13, band: .idle, state: .suspended, secondsInBand: 4),
      SnapshotEntry(name: "bg", pid: 12, band: .background, state: .background, secondsInBand: 7),
      SnapshotEntry(name: "fg", pid: 10, band: .foreground, state: .foreground, secondsInBand: 9),
      SnapshotEntry(name: "music", pid: 11, band: .audio, state: .background, secondsInBand: 8),
    ]
    #expect(kill.app == "s1")
    #expect(kill.snapshot == expectedSnapshot)

    let record = try #require(policy.exits("s1", sigkill, at: t(11)).records.first)
    var expected = ExitRecord(
      app: "s1", pid: 14, launch: 1,
      cause: ExitCause(
        reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", endedBy: .jetsam,
        signal: Signal.kill.rawValue),
      lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 7, stateSeconds: 6),
      pressure: ExitPressure(level: .urgent, availableBytes: Available.urgent, snapshot: expectedSnapshot))
    // Started in the background and suspended at once: no time in either state.
    expected.launchMetrics = LaunchMetrics()
    #expect(record == expected)
  }

  @Test func aKillRecordTellsThePressureThatCausedIt() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("victim", pid: 10, at: t(1), stoppedAt: t(2))
    try policy.start("other", pid: 11, at: t(3))
    let kill = try #require(policy.sample(Available.critical, at: t(10)).jetsamKills.first)
    #expect(kill.app == "victim")
    // The memory is back (a sample says so) before the victim's exit is seen.
    _ = policy.sample(Available.plenty, at: t(10, ms: 5))
    #expect(policy.level == .normal)
    let record = try #require(policy.exits("victim", sigkill, at: t(10, ms: 6)).records.first)
    #expect(record.pressure.level == .critical)
    #expect(record.pressure.availableBytes == Available.critical)
    // A plain exit later carries the level of its own time.
    let plain = try #require(policy.exits("other", .exited(code: 0), at: t(11)).records.first)
    #expect(plain.pressure.level == .normal)
    #expect(plain.pressure.availableBytes == Available.plenty)
  }

  @Test func aKillInFlightSurvivesADaemonRestart() throws {
    // The old daemon killed the victim under critical pressure and died before seeing the exit.
    var old = JetsamPolicy()
    try old.startSuspended("victim", pid: 10, at: t(1), stoppedAt: t(2))
    #expect(old.sample(Available.critical, at: t(10)).jetsamKills.first?.app == "victim")
    let inFlight = try #require(old.app(named: "victim")?.killInFlight)
    #expect(inFlight.kill == .jetsam && inFlight.level == .critical && inFlight.availableBytes == Available.critical)
    #expect(inFlight.snapshot?.map(\.name) == ["victim"], "the snapshot of the decision travels with it")

    // The new daemon adopts what the state file kept, and finds the process gone.
    var policy = JetsamPolicy()
    var saved = AppStatus(
      name: "victim", state: .suspended, bandFloor: nil, pid: 10, launch: 1,
      stateEnteredAt: t(2), bandEnteredAt: t(2), spawnedAt: t(1))
    saved.killInFlight = inFlight
    policy.observe(.adopt(app: saved, at: t(20)))
    _ = policy.sample(Available.plenty, at: t(20))
    let record = try #require(policy.exits("victim", .unobserved, at: t(20)).records.first)
    #expect(record.cause.reason == .memoryPressure)
    #expect(record.cause.terminationReason == "JETSAM memory-pressure")
    #expect(record.pressure.level == .critical)
    #expect(record.pressure.availableBytes == Available.critical)
    #expect(
      record.pressure.snapshot == inFlight.snapshot, "the snapshot of the decision, taken before the old daemon died")
  }

  @Test func aStalePidIsIgnored() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    policy.exits("a", sigkill, at: t(2))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(3)))
    policy.observe(.spawned(app: "a", pid: 20, at: t(3)))
    let before = policy.apps
    // The first process's exit arrives again, late.
    #expect(policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: t(4))) == [])
    #expect(policy.apps == before)
    let record = try #require(policy.exits("a", .exited(code: 0), at: t(5)).records.first)
    #expect(record.launch == 2)
    #expect(record.pid == 20)
  }

  @Test func observationsAboutUnknownAppsAreIgnored() throws {
    var policy = JetsamPolicy()
    #expect(policy.observe(.exited(app: "ghost", pid: 1, end: sigkill, oomKilled: false, at: t(1))) == [])
    #expect(policy.observe(.spawned(app: "ghost", pid: 1, at: t(1))) == [])
    #expect(policy.observe(.spawnFailed(app: "ghost", message: "x", at: t(1))) == [])
    #expect(policy.observe(.suspendCompleted(app: "ghost", at: t(1))) == [])
    #expect(policy.apps.isEmpty)
  }

  @Test func theCgroupOOMKillerIsAPerProcessLimit() throws {
    var policy = JetsamPolicy()
    try policy.start("hog", pid: 10, at: t(1), foreground: true)
    let record = try #require(policy.exits("hog", sigkill, oomKilled: true, at: t(2)).records.first)
    #expect(record.cause.reason == .memoryResourceLimit)
    #expect(record.cause.terminationReason == "JETSAM per-process-limit")
    #expect(record.pressure.snapshot == nil)
  }

  @Test(
    "A victim that ends by itself is classified by what happened and still frees jetsam",
    arguments: [
      (ProcessEnd.exited(code: 0), ExitReason.normalAppExit, "EXIT 0"),
      (.signaled(signal: Signal.segmentationFault.rawValue, dumpedCore: true), .badAccess, "SIGNAL 0xb"),
    ])
  func victimEndsByItself(end: ProcessEnd, reason: ExitReason, code: String) throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["a"])
    let exit = policy.exits("a", end, at: t(10, ms: 100))
    let record = try #require(exit.records.first)
    #expect(record.cause.reason == reason)
    #expect(record.cause.terminationReason == code)
    // It was the chosen victim, so its record keeps the snapshot taken when it was chosen.
    #expect(record.pressure.snapshot?.map(\.name) == ["a", "b"])
    // The kill is no longer in flight (no timeout pending), and the next victim waits for a fresh sample.
    #expect(exit.killed == [])
    #expect(policy.nextDeadline == nil)
    #expect(policy.sample(Available.urgent, at: t(11)).killed == ["b"])
  }
}
