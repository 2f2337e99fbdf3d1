import JetsamCore
import JetsamValues
import Testing

/// The app side of the policy: lifecycle events, acknowledgements and their watchdog, background tasks,
/// memory warnings and willTerminate — all on the manual clock.
@Suite("App channel")
struct AppChannelTests {
  static let timings = LifecycleTimings(
    launch: .seconds(20), foregroundTransition: .seconds(10), background: .seconds(5), terminate: .seconds(5),
    backgroundTaskBudget: .seconds(30), expirationWarning: .seconds(5), expirationGrace: .seconds(1))

  static func policy(grace: Duration? = .seconds(10)) -> JetsamPolicy {
    var config = testConfig(grace: grace)
    config.lifecycle = timings
    return JetsamPolicy(config: config)
  }

  /// The events delivered in `actions`, as "app:event" strings.
  static func events(_ actions: [PolicyAction]) -> [String] {
    actions.compactMap {
      if case .deliver(let app, _, let event) = $0 { "\(app):\(event.kind.rawValue)" } else { nil }
    }
  }

  static func lastEventID(_ actions: [PolicyAction], _ kind: AppEventKind) -> Int? {
    actions.compactMap {
      if case .deliver(_, _, let event) = $0, event.kind == kind { event.id } else { nil }
    }.last
  }

  static func kills(_ actions: [PolicyAction]) -> [String] {
    actions.compactMap { if case .kill(let app, _, let reason, _) = $0 { "\(app):\(reason.rawValue)" } else { nil } }
  }

  @Test("launch → foreground → background → suspended → resumed → foreground: the exact event sequence")
  func eventSequence() throws {
    var policy = Self.policy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    var events: [String] = []
    events += Self.events(try policy.handle(.launch(app: "a", foreground: true, at: t(0))))
    events += Self.events(policy.observe(.spawned(app: "a", pid: 10, at: t(0))))
    events += Self.events(try policy.handle(.moveToBackground(app: "a", at: t(1))))
    events += Self.events(try policy.handle(.suspend(app: "a", at: t(2))))
    events += Self.events(try policy.handle(.resume(app: "a", at: t(3))))
    events += Self.events(try policy.handle(.activate(app: "a", at: t(4))))
    #expect(
      events == [
        "a:didFinishLaunching", "a:didBecomeActive", "a:willResignActive", "a:didEnterBackground",
        "a:willEnterForeground", "a:didBecomeActive",
      ])
  }

  @Test("didFinishLaunching says where the launch goes, and ids count up from 1")
  func launchEvent() throws {
    var policy = Self.policy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(0)))
    let actions = policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
    guard case .deliver(_, 10, let event)? = actions.first(where: { if case .deliver = $0 { true } else { false } })
    else {
      Issue.record("no event delivered: \(actions)")
      return
    }
    #expect(event.id == 1)
    #expect(event.kind == .didFinishLaunching)
    #expect(event.launchesToForeground == false)
  }

  @Test("a hung didEnterBackground is killed at its deadline with appWatchdog and the event's name")
  func watchdog() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    // It acknowledges everything so far.
    for id in 1...2 { policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(0))) }
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    let backgroundID = try #require(Self.lastEventID(moved, .didEnterBackground))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: backgroundID - 1), at: t(1)))
    #expect(policy.nextDeadline == t(6), "didEnterBackground's 5 s deadline")
    #expect(Self.kills(policy.observe(.tick(at: t(5, ms: 999)))).isEmpty)
    let actions = policy.observe(.tick(at: t(6)))
    #expect(Self.kills(actions) == ["a:appWatchdog"])
    #expect(
      actions.first == .diagnose(app: "a", pid: 10, .hang(event: .didEnterBackground, seconds: 5)),
      "the hang's stacks are asked for before the kill")
    let record = try #require(
      recordOf(policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: t(6)))))
    #expect(record.cause.reason == .appWatchdog)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0x8badf00d")
    #expect(record.evidence.watchdogEvent == "didEnterBackground")
    #expect(record.lifecycle.state == .background)
  }

  @Test("an app that never spoke is not watched; hello starts the watchdog of the first event pending")
  func helloStartsWatching() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    #expect(policy.nextDeadline == nil)
    #expect(Self.kills(policy.observe(.tick(at: t(100)))).isEmpty)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(100)))
    #expect(policy.nextDeadline == t(120), "didFinishLaunching's 20 s from hello; didBecomeActive waits behind it")
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: 1), at: t(101)))
    #expect(policy.nextDeadline == t(111), "didBecomeActive's 10 s from didFinishLaunching's acknowledgement")
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: 2), at: t(102)))
    #expect(policy.nextDeadline == nil)
  }

  /// Launches a watched app (hello at once) and returns the events delivered.
  static func watchedApp(_ policy: inout JetsamPolicy, foreground: Bool = true) throws -> [PolicyAction] {
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0, acknowledgements: .always))
    _ = try policy.handle(.launch(app: "a", foreground: foreground, at: t(0)))
    return policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
  }

  /// A watched app, launched to the foreground, that acknowledged its launch and was sent to the background at
  /// t(10); returns the events of that move.
  static func backgroundedWatchedApp(_ policy: inout JetsamPolicy) throws -> [PolicyAction] {
    _ = try watchedApp(&policy)
    for id in 1...2 { policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(1))) }
    return try policy.handle(.moveToBackground(app: "a", at: t(10)))
  }

  /// Expects the watchdog to kill the app at `at`, and the record of the exit that follows to blame `event`,
  /// after `seconds` in its handler.
  static func expectWatchdogKill(
    _ policy: inout JetsamPolicy, at: Instant, event: String, seconds: Double
  ) throws {
    #expect(Self.kills(policy.observe(.tick(at: at))) == ["a:appWatchdog"])
    let record = try #require(
      recordOf(policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: at))))
    #expect(record.evidence.watchdogEvent == event)
    #expect(record.evidence.watchdogSeconds == seconds)
  }

  @Test("a foreground launch hung in didFinishLaunching dies at its 20 s, blamed on it, not on didBecomeActive")
  func launchHangIsBlamedOnItsEvent() throws {
    var policy = Self.policy()
    _ = try Self.watchedApp(&policy)
    #expect(policy.nextDeadline == t(20))
    #expect(Self.kills(policy.observe(.tick(at: t(10)))).isEmpty, "didBecomeActive's 10 s has not started")
    try Self.expectWatchdogKill(&policy, at: t(20), event: "didFinishLaunching", seconds: 20)
  }

  @Test("each handler of a transition gets its own allowance, from the acknowledgement of the one before")
  func handlersRunInOrder() throws {
    var policy = Self.policy(grace: nil)
    // willResignActive (10 s) then didEnterBackground (5 s): 6 s in the first is within its allowance.
    let moved = try Self.backgroundedWatchedApp(&policy)
    #expect(Self.events(moved) == ["a:willResignActive", "a:didEnterBackground"], "both go out at once")
    #expect(policy.nextDeadline == t(20), "willResignActive's 10 s")
    #expect(Self.kills(policy.observe(.tick(at: t(15)))).isEmpty, "didEnterBackground's 5 s has not started")
    let resign = try #require(Self.lastEventID(moved, .willResignActive))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: resign), at: t(16)))
    #expect(policy.nextDeadline == t(21), "didEnterBackground's 5 s from then")
    try Self.expectWatchdogKill(&policy, at: t(21), event: "didEnterBackground", seconds: 5)
  }

  @Test("a hang in the first handler of a transition is blamed on it, whatever follows")
  func firstHandlerHang() throws {
    var policy = Self.policy(grace: nil)
    let moved = try Self.backgroundedWatchedApp(&policy)
    // didEnterBackground is acknowledged (a client that answers out of order): willResignActive still hangs.
    let background = try #require(Self.lastEventID(moved, .didEnterBackground))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: background), at: t(11)))
    try Self.expectWatchdogKill(&policy, at: t(20), event: "willResignActive", seconds: 10)
  }

  @Test("activation from the background: didBecomeActive's watchdog waits for willEnterForeground")
  func activationInOrder() throws {
    var policy = Self.policy(grace: nil)
    _ = try Self.watchedApp(&policy, foreground: false)
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: 1), at: t(1)))
    let activated = try policy.handle(.activate(app: "a", at: t(2)))
    #expect(Self.events(activated) == ["a:willEnterForeground", "a:didBecomeActive"])
    #expect(policy.nextDeadline == t(12), "willEnterForeground's 10 s")
    let enter = try #require(Self.lastEventID(activated, .willEnterForeground))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: enter), at: t(9)))
    #expect(policy.nextDeadline == t(19), "didBecomeActive's 10 s from then")
    try Self.expectWatchdogKill(&policy, at: t(19), event: "didBecomeActive", seconds: 10)
  }

  @Test("a command hook answers for an app that does not speak: it runs, its deadline is watched, its end acks")
  func hookWatch() throws {
    var policy = Self.policy()
    _ = try policy.handle(
      .configure(
        app: "a", bandFloor: nil, launchCount: 0,
        hooks: [.didEnterBackground: .command(["/bin/true"], timeout: .seconds(2))]))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(0)))
    policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    let id = try #require(Self.lastEventID(moved, .didEnterBackground))
    #expect(
      moved.contains { if case .runHook("a", 10, let event, ["/bin/true"], nil) = $0 { event.id == id } else { false } }
    )
    #expect(policy.nextDeadline == t(3))
    policy.observe(.hookEnded(app: "a", pid: 10, event: id, at: t(2)))
    #expect(policy.nextDeadline == t(11), "only the background grace is left")
  }

  @Test("a never-ended background task gets backgroundTaskWillExpire, then is killed with its name")
  func taskExpiry() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    let reply = policy.observe(
      .appMessage(app: "a", pid: 10, message: .beginBackgroundTask(requestID: 7, name: "upload"), at: t(0)))
    #expect(reply == [.reply(app: "a", pid: 10, requestID: 7, .taskBegun(task: 1))])
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(10)))
    for id in 1...(Self.lastEventID(moved, .didEnterBackground) ?? 0) {
      policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(10)))
    }
    // The grace passes, but the task keeps it running.
    #expect(policy.observe(.tick(at: t(20))).isEmpty)
    #expect(policy.app(named: "a")?.state == .background)
    let remaining = policy.observe(
      .appMessage(app: "a", pid: 10, message: .backgroundTimeRemaining(requestID: 8), at: t(25, ms: 500)))
    #expect(remaining == [.reply(app: "a", pid: 10, requestID: 8, .timeRemaining(.milliseconds(14500)))])
    #expect(policy.nextDeadline == t(35))
    let warned = policy.observe(.tick(at: t(35)))
    #expect(Self.events(warned) == ["a:backgroundTaskWillExpire"])
    #expect(Self.kills(warned).isEmpty)
    let killed = policy.observe(.tick(at: t(41)))
    #expect(Self.kills(killed) == ["a:backgroundTaskAssertionTimeout"])
    let record = try #require(
      recordOf(policy.observe(.exited(app: "a", pid: 10, end: sigkill, oomKilled: false, at: t(41)))))
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0x2182bad2")
    #expect(record.evidence.openBackgroundTasks == ["upload"])
  }

  @Test("an ended task lets the app be suspended after the background grace")
  func endedTaskSuspends() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .beginBackgroundTask(requestID: 1, name: "save"), at: t(0)))
    let moved = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    // Its first message made it an app that speaks (auto mode): it answers every event it was sent.
    let last = try #require(Self.lastEventID(moved, .didEnterBackground))
    for id in 1...last { policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(1))) }
    #expect(policy.observe(.tick(at: t(11))).isEmpty, "busy at the end of the grace")
    policy.observe(.appMessage(app: "a", pid: 10, message: .endBackgroundTask(task: 1, requestID: nil), at: t(15)))
    #expect(policy.nextDeadline == t(25))
    let actions = policy.observe(.tick(at: t(25)))
    #expect(actions.contains(.suspend(app: "a", pid: 10)))
    #expect(policy.app(named: "a")?.state == .suspended)
  }

  @Test("memory warnings reach foreground and background apps before any jetsam kill")
  func memoryWarningFirst() throws {
    var policy = Self.policy(grace: nil)
    try policy.startSuspended("s", pid: 1, at: t(0))
    try policy.start("b", pid: 2, at: t(0))
    try policy.start("f", pid: 3, at: t(0), foreground: true)
    let actions = policy.sample(Available.urgent, at: t(1))
    #expect(Self.events(actions) == ["b:memoryWarning", "f:memoryWarning"])
    let firstKill = try #require(actions.firstIndex { if case .kill = $0 { true } else { false } })
    let lastWarning = try #require(actions.lastIndex { if case .deliver = $0 { true } else { false } })
    #expect(lastWarning < firstKill)
    #expect(Self.kills(actions) == ["s:memoryPressure"])
  }

  @Test("willTerminate goes to a speaking app first; SIGTERM follows its acknowledgement or its deadline")
  func willTerminate() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    for id in 1...2 { policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(0))) }
    let asked = try policy.handle(.terminate(app: "a", at: t(1)))
    #expect(Self.events(asked) == ["a:willTerminate"])
    #expect(!asked.contains(.terminate(app: "a", pid: 10)))
    let id = try #require(Self.lastEventID(asked, .willTerminate))
    let acked = policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: id), at: t(2)))
    // The acknowledgement is published (a watcher sees the handler end), then the SIGTERM goes out.
    #expect(acked == [.acknowledged(app: "a", pid: 10, event: .willTerminate), .terminate(app: "a", pid: 10)])

    // Without an acknowledgement, the SIGTERM goes out at the deadline — no watchdog kill.
    var silent = Self.policy()
    try silent.start("b", pid: 11, at: t(0), foreground: true)
    silent.observe(.appMessage(app: "b", pid: 11, message: .hello, at: t(0)))
    for id in 1...2 { silent.observe(.appMessage(app: "b", pid: 11, message: .acknowledge(event: id), at: t(0))) }
    _ = try silent.handle(.terminate(app: "b", at: t(1)))
    let late = silent.observe(.tick(at: t(6)))
    #expect(late == [.terminate(app: "b", pid: 11)])
    let record = try #require(
      recordOf(silent.observe(.exited(app: "b", pid: 11, end: sigterm, oomKilled: false, at: t(6)))))
    #expect(record.cause.reason == .normalAppExit)
  }

  @Test("a suspended app gets no willTerminate, and its pending deadlines are dropped")
  func suspendedApp() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    _ = try policy.handle(.suspend(app: "a", at: t(1)))
    policy.observe(.suspendCompleted(app: "a", at: t(1)))
    #expect(policy.nextDeadline == nil, "no watchdog runs against a stopped app")
    let actions = try policy.handle(.terminate(app: "a", at: t(2)))
    #expect(Self.events(actions).isEmpty)
    #expect(actions.contains(.terminate(app: "a", pid: 10)))
  }

  @Test("an app holds at most maxOpenBackgroundTasks open tasks; ending one makes room")
  func backgroundTaskCap() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    func begin(_ id: Int) -> [PolicyAction] {
      policy.observe(
        .appMessage(app: "a", pid: 10, message: .beginBackgroundTask(requestID: id, name: "t\(id)"), at: t(0)))
    }
    for id in 1...JetsamPolicy.maxOpenBackgroundTasks {
      guard case .reply? = begin(id).first else {
        Issue.record("task \(id) was refused")
        return
      }
    }
    guard case .appError(_, _, let requestID, let code, _)? = begin(1000).first else {
      Issue.record("one task too many was granted")
      return
    }
    #expect(requestID == 1000 && code == .tooManyTasks)
    _ = policy.observe(.appMessage(app: "a", pid: 10, message: .endBackgroundTask(task: 1, requestID: nil), at: t(0)))
    guard case .reply? = begin(1001).first else {
      Issue.record("no room after a task ended")
      return
    }
  }

  @Test("messages from an earlier launch's channel are ignored; unknown tasks and events are errors")
  func staleAndUnknown() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    #expect(policy.observe(.appMessage(app: "a", pid: 9, message: .hello, at: t(0))).isEmpty)
    let unknownTask = policy.observe(
      .appMessage(app: "a", pid: 10, message: .endBackgroundTask(task: 4, requestID: 2), at: t(0)))
    #expect(unknownTask == [.appError(app: "a", pid: 10, requestID: 2, code: .unknownTask, message: "no open task 4")])
    let unknownEvent = policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: 99), at: t(0)))
    #expect(unknownEvent.count == 1)
  }

  @Test("a signpost is published with the launch it came from, answered when asked, refused when unnamed")
  func signposts() throws {
    var policy = Self.policy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(0)))
    _ = policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
    let begin = policy.observe(
      .appMessage(app: "a", pid: 10, message: .signpost(name: "save", phase: .begin, requestID: 4), at: t(1)))
    #expect(
      begin == [
        .signposted(app: "a", pid: 10, launch: 1, name: "save", phase: .begin),
        // Its interval's cost: the counters at its begin (SignpostMetricsTests).
        .readSignpostCounters(app: "a", pid: 10, reading: 1),
        .reply(app: "a", pid: 10, requestID: 4, .done),
      ])
    let unnamed = policy.observe(
      .appMessage(app: "a", pid: 10, message: .signpost(name: "", phase: .event, requestID: nil), at: t(1)))
    guard case .appError(_, _, nil, .badLine, _)? = unnamed.first, unnamed.count == 1 else {
      Issue.record("expected a refusal, got \(unnamed)")
      return
    }
    // An earlier launch's channel speaks for nobody.
    #expect(
      policy.observe(
        .appMessage(app: "a", pid: 9, message: .signpost(name: "save", phase: .end, requestID: nil), at: t(1))
      ).isEmpty)
  }
}

/// The exit record among `actions`, if any.
func recordOf(_ actions: [PolicyAction]) -> ExitRecord? {
  actions.compactMap { if case .recordExit(let record) = $0 { record } else { nil } }.first
}
