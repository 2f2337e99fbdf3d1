import JetsamCore
import JetsamValues
import Testing

/// Commands that speak for a program that does not speak the protocol (`ready`, `digest`): when the policy runs
/// them, what their ends answer, and that the digests they print are judged as an app's own are.
@Suite("App commands")
struct AppCommandsTests {
  static let ready = ["redis-cli", "PING"]
  static let digest = ["redis-cli", "DEBUG", "DIGEST"]

  static func policy() -> JetsamPolicy {
    var config = testConfig(grace: .seconds(10))
    config.lifecycle = AppChannelTests.timings
    return JetsamPolicy(config: config)
  }

  /// Configures app `a` with `commands` (and `hooks`) and launches it into the foreground as pid `pid` at `at`.
  static func launch(
    _ policy: inout JetsamPolicy, _ commands: AppCommands, hooks: [AppEventKind: AppHook] = [:], pid: Int32 = 10,
    at: Instant = t(0)
  ) throws -> [PolicyAction] {
    let settings = AppSettings(launch: LaunchSpec(command: ["redis-server"]), hooks: hooks, commands: commands)
    _ = try policy.handle(.configure(app: "a", settings: settings, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: at))
    return try policy.handle(.spawned(app: "a", pid: pid, at: at))
  }

  /// The runs `actions` ask for.
  static func runs(_ actions: [PolicyAction]) -> [AppCommandRun] {
    actions.compactMap { if case .runCommand(_, _, let run, _, _, _) = $0 { run } else { nil } }
  }

  static func acknowledged(_ actions: [PolicyAction]) -> [AppEventKind] {
    actions.compactMap { if case .acknowledged(_, _, let event) = $0 { event } else { nil } }
  }

  /// What the shell reports of a digest run that printed `value`: the app's `stateDigest`, then the run's end.
  static func digestPrinted(
    _ policy: inout JetsamPolicy, _ phase: DigestPhase, _ value: String, validFor: Duration? = nil, pid: Int32 = 10,
    at: Instant
  ) -> [PolicyAction] {
    policy.reportDigest("a", phase, value, validFor: validFor, at: at)
      + policy.observe(
        .commandEnded(app: "a", pid: pid, run: .digest(phase, validFor: validFor), succeeded: true, at: at))
  }

  @Test("the backoff between polls of ready: 50 ms, doubling, at most a second")
  func backoff() {
    let pauses = (1...7).map { AppCommands.readyBackoff(afterAttempt: $0) }
    #expect(pauses == [50, 100, 200, 400, 800, 1000, 1000].map { Duration.milliseconds($0) })
  }

  @Test("ready is polled from the launch with backoff; its first success acknowledges didFinishLaunching")
  func readyPolled() throws {
    var policy = Self.policy()
    let spawned = try Self.launch(&policy, AppCommands(ready: Self.ready, readyTimeout: .seconds(2)))
    #expect(Self.runs(spawned) == [.ready])
    #expect(
      spawned.contains {
        if case .runCommand("a", 10, .ready, Self.ready, nil, .seconds(2)) = $0 { true } else { false }
      })
    // Failed: the next poll 50 ms later, then 100 ms after the next failure.
    #expect(policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: false, at: t(0, ms: 10))).isEmpty)
    #expect(policy.nextDeadline == t(0, ms: 60))
    #expect(policy.observe(.tick(at: t(0, ms: 59))).isEmpty)
    #expect(Self.runs(policy.observe(.tick(at: t(0, ms: 60)))) == [.ready])
    policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: false, at: t(0, ms: 70)))
    #expect(policy.nextDeadline == t(0, ms: 170))
    #expect(Self.runs(policy.observe(.tick(at: t(0, ms: 170)))) == [.ready])
    let up = policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: true, at: t(0, ms: 180)))
    #expect(Self.acknowledged(up) == [.didFinishLaunching])
    #expect(Self.runs(up).isEmpty, "no restoration is owed on a fresh launch")
    // Nothing more is polled, and the program, which never spoke, is not watched for didBecomeActive.
    #expect(policy.nextDeadline == nil)
  }

  @Test("a program whose ready never succeeds is killed at didFinishLaunching's deadline")
  func readyNeverSucceeds() throws {
    var policy = Self.policy()
    _ = try Self.launch(&policy, AppCommands(ready: Self.ready))
    var at = t(0)
    var killed: [String] = []
    while killed.isEmpty, at < t(30) {
      at = policy.nextDeadline ?? t(30)
      let actions = policy.observe(.tick(at: at))
      if !Self.runs(actions).isEmpty {
        policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: false, at: at))
      }
      killed = AppChannelTests.kills(actions)
    }
    #expect(killed == ["a:appWatchdog"])
    #expect(at == t(20), "the launch watchdog's 20 s")
  }

  @Test("the saved digest is taken at didEnterBackground, after its command hook; its run answers the event")
  func savedAfterHook() throws {
    var policy = Self.policy()
    let save = AppHook.command(["redis-cli", "SAVE"], timeout: nil)
    _ = try Self.launch(&policy, AppCommands(digest: Self.digest), hooks: [.didEnterBackground: save])
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    let event = try #require(AppChannelTests.lastEventID(moved, .didEnterBackground))
    #expect(moved.contains { if case .runHook(_, _, let e, _, _) = $0 { e.id == event } else { false } })
    #expect(Self.runs(moved).isEmpty, "not before the save")
    let saved = policy.observe(.hookEnded(app: "a", pid: 10, event: event, at: t(2)))
    #expect(Self.runs(saved) == [.digest(.saved, validFor: nil)])
    #expect(Self.acknowledged(saved).isEmpty, "the event waits for the digest")
    #expect(policy.nextDeadline == t(6), "within didEnterBackground's 5 s from t(1)")
    let answered = Self.digestPrinted(&policy, .saved, "d1", at: t(3))
    #expect(Self.acknowledged(answered) == [.didEnterBackground])
    #expect(policy.app(named: "a")?.savedDigest == "d1")
    #expect(policy.nextDeadline == t(11), "only the background grace: the digest did not make the program speak")
  }

  @Test("without a hook the saved digest runs at once; a failed run still answers the event")
  func savedWithoutHook() throws {
    var policy = Self.policy()
    _ = try Self.launch(&policy, AppCommands(digest: Self.digest, digestValidFor: .seconds(30)))
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    #expect(Self.runs(moved) == [.digest(.saved, validFor: .seconds(30))])
    let failed = policy.observe(
      .commandEnded(app: "a", pid: 10, run: .digest(.saved, validFor: .seconds(30)), succeeded: false, at: t(2)))
    #expect(Self.acknowledged(failed) == [.didEnterBackground])
    #expect(policy.app(named: "a")?.savedDigest == nil)
  }

  @Test(
    "after a kill, the relaunch's digest once ready succeeds is judged as the app's own: match or mismatch",
    arguments: [("d1", RestorationVerdict.match), ("d0", .mismatch)])
  func restoredJudged(restored: String, verdict: RestorationVerdict) throws {
    var policy = Self.policy()
    let commands = AppCommands(ready: Self.ready, digest: Self.digest)
    _ = try Self.launch(&policy, commands)
    policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: true, at: t(0)))
    _ = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    _ = Self.digestPrinted(&policy, .saved, "d1", at: t(1))
    let record = try #require(policy.exits("a", sigkill, at: t(5)).records.first)
    #expect(record.savedState.digest == "d1")
    policy.observe(.exitRecorded(record))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(6)))
    let spawned = policy.observe(.spawned(app: "a", pid: 11, at: t(6)))
    #expect(Self.runs(spawned) == [.ready], "not before the program is up")
    let up = policy.observe(.commandEnded(app: "a", pid: 11, run: .ready, succeeded: true, at: t(7)))
    #expect(Self.runs(up) == [.digest(.restored, validFor: nil)])
    let judged = Self.digestPrinted(&policy, .restored, restored, pid: 11, at: t(7))
    #expect(
      judged.contains {
        if case .restorationJudged("a", 2, verdict, "d1", restored) = $0 { true } else { false }
      })
    #expect(policy.app(named: "a")?.restoration == verdict)
  }

  @Test("with a validity, the digest runs at the return's didBecomeActive, and the return is judged stale or fresh")
  func resumedJudged() throws {
    var policy = Self.policy()
    _ = try Self.launch(&policy, AppCommands(digest: Self.digest, digestValidFor: .seconds(10)))
    _ = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    _ = Self.digestPrinted(&policy, .saved, "d1", validFor: .seconds(10), at: t(1))
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    policy.observe(.suspendCompleted(app: "a", at: t(2)))
    let back = try policy.handle(.activate(app: "a", at: t(20)))
    #expect(Self.runs(back) == [.digest(.resumed, validFor: nil)])
    _ = Self.digestPrinted(&policy, .resumed, "d1", at: t(20))
    #expect(policy.app(named: "a")?.resumption?.verdict == .stale)
  }

  @Test("a suspension pauses the polls of ready; the return polls again, and its success answers the launch")
  func readyAcrossSuspension() throws {
    var policy = Self.policy()
    _ = try Self.launch(&policy, AppCommands(ready: Self.ready))
    policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: false, at: t(0, ms: 10)))
    _ = try policy.handle(.moveToBackground(app: "a", at: t(0, ms: 20)))
    _ = try policy.handle(.suspend(app: "a", at: t(0, ms: 30)))
    policy.observe(.suspendCompleted(app: "a", at: t(0, ms: 30)))
    // A stopped program cannot answer: nothing is polled while it is suspended, and no tick is asked for it.
    #expect(Self.runs(policy.observe(.tick(at: t(0, ms: 60)))).isEmpty)
    #expect(policy.nextDeadline.map { $0 > t(5) } ?? true, "no tick for the paused poll: \(policy.nextDeadline!)")
    #expect(Self.runs(policy.observe(.tick(at: t(5)))).isEmpty)
    // Back: the poll due during the suspension runs at once.
    let back = try policy.handle(.activate(app: "a", at: t(6)))
    let polled = Self.runs(back) + Self.runs(policy.observe(.tick(at: policy.nextDeadline ?? t(6))))
    #expect(polled == [.ready])
    let up = policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: true, at: t(6, ms: 10)))
    #expect(Self.acknowledged(up) == [.didFinishLaunching])
  }

  @Test("a run's end from an earlier launch's process is ignored")
  func earlierProcess() throws {
    var policy = Self.policy()
    _ = try Self.launch(&policy, AppCommands(ready: Self.ready))
    #expect(policy.observe(.commandEnded(app: "a", pid: 9, run: .ready, succeeded: true, at: t(1))).isEmpty)
  }
}
