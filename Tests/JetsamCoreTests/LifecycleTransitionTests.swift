import JetsamCore
import JetsamValues
import Testing

/// Where an app is before a request: every resting state a request can find it in.
enum StartState: String, CaseIterable, CustomTestStringConvertible {
  case notRunning, launching, foregroundActive, background, suspended, terminated

  var testDescription: String { rawValue }

  /// A policy holding the app "a" (pid 10 while running) in this state, reached at t(1).
  func policy() throws -> JetsamPolicy {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    switch self {
    case .notRunning: break
    case .launching: _ = try policy.handle(.launch(app: "a", foreground: false, at: t(1)))
    case .foregroundActive: try policy.start("a", pid: 10, at: t(1), foreground: true)
    case .background: try policy.start("a", pid: 10, at: t(1))
    case .suspended: try policy.startSuspended("a", pid: 10, at: t(1))
    case .terminated:
      try policy.start("a", pid: 10, at: t(1))
      policy.exits("a", .exited(code: 0), at: t(1))
    }
    return policy
  }
}

/// Every request a user can make of one app.
enum Request: String, CaseIterable, CustomTestStringConvertible {
  case configure, launch, activate, background, suspend, resume, kill, terminate

  var testDescription: String { rawValue }

  func event(_ app: String, at instant: Instant) -> PolicyEvent {
    switch self {
    case .configure: .configure(app: app, bandFloor: nil, launchCount: 0)
    case .launch: .launch(app: app, foreground: false, at: instant)
    case .activate: .activate(app: app, at: instant)
    case .background: .moveToBackground(app: app, at: instant)
    case .suspend: .suspend(app: app, at: instant)
    case .resume: .resume(app: app, at: instant)
    case .kill: .kill(app: app, reason: .abnormal, at: instant)
    case .terminate: .terminate(app: app, at: instant)
    }
  }
}

/// The states a request walks an app through, or nil where the request is refused.
func expectedMoves(_ start: StartState, _ request: Request) -> [LifecycleState]? {
  switch (start, request) {
  // A running app takes a configure too (a reload): its caps at once, the rest at its next launch.
  case (_, .configure): []
  case (.notRunning, .launch), (.terminated, .launch): [.launching]
  case (.notRunning, .activate), (.terminated, .activate): [.launching]
  case (.launching, .activate): []  // only marks the pending launch for the foreground
  case (.foregroundActive, .activate): []
  case (.foregroundActive, .background): [.foregroundInactive, .background]
  case (.foregroundActive, .suspend): [.foregroundInactive, .background, .suspended]
  case (.background, .activate): [.foregroundInactive, .foregroundActive]
  case (.background, .suspend): [.suspended]
  case (.suspended, .activate): [.background, .foregroundInactive, .foregroundActive]
  case (.suspended, .resume): [.background]
  // Kills and terminates change no state until the process is seen to end.
  case (.foregroundActive, .kill), (.background, .kill), (.suspended, .kill): []
  case (.foregroundActive, .terminate), (.background, .terminate), (.suspended, .terminate): []
  default: nil
  }
}

@Suite struct LifecycleTransitionTests {
  @Test(
    "Each request either walks legal moves or is refused leaving the policy unchanged",
    arguments: StartState.allCases, Request.allCases)
  func requestInState(start: StartState, request: Request) throws {
    var policy = try start.policy()
    let before = policy.apps
    let from = try #require(policy.app(named: "a")).state
    if let expected = expectedMoves(start, request) {
      let actions = try policy.handle(request.event("a", at: t(5)))
      #expect(actions.moves.map(\.to) == expected)
      for move in actions.moves { #expect(move.from.canMove(to: move.to), "\(move)") }
    } else {
      #expect(throws: PolicyError.illegalTransition(app: "a", from: from, request: request.rawValue)) {
        try policy.handle(request.event("a", at: t(5)))
      }
      #expect(policy.apps == before)
    }
  }

  @Test("a reload while the app runs: its new caps at once, its new command and settings from its next launch")
  func configureWhileRunning() throws {
    var policy = JetsamPolicy()
    let old = LaunchSpec(command: ["old"], limits: AppLimits(memoryBytes: 64 << 20))
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0, launch: old))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(0)))
    policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
    let new = LaunchSpec(command: ["new"], limits: AppLimits(memoryBytes: 128 << 20))
    let reloaded = try policy.handle(.configure(app: "a", bandFloor: .audio, launchCount: 0, launch: new))
    #expect(reloaded == [.setLimits(app: "a", pid: 10, AppLimits(memoryBytes: 128 << 20))])
    #expect(policy.settings(of: "a")?.launch?.command == ["old"], "the running process keeps how it was started")
    #expect(policy.app(named: "a")?.bandFloor == nil)
    #expect(try policy.handle(.configure(app: "a", bandFloor: .audio, launchCount: 0, launch: new)).isEmpty)
    _ = policy.exits("a", .exited(code: 0), at: t(1))
    let relaunch = try policy.handle(.launch(app: "a", foreground: false, at: t(2)))
    guard case .spawn("a", 2, _, let spec)? = relaunch.last else {
      Issue.record("expected a spawn: \(relaunch)")
      return
    }
    #expect(spec == new)
    #expect(policy.app(named: "a")?.bandFloor == .audio)
  }

  @Test("an app taken over without its config cannot be launched again: its command is not known")
  func notLaunchable() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", settings: AppSettings(launch: nil, adHoc: true), launchCount: 0))
    #expect(throws: PolicyError.notLaunchable(app: "a")) {
      try policy.handle(.launch(app: "a", foreground: true, at: t(0)))
    }
    #expect(policy.app(named: "a")?.state == .notRunning)
  }

  @Test("Requests about an unknown app are refused", arguments: Request.allCases.filter { $0 != .configure })
  func unknownApp(request: Request) {
    var policy = JetsamPolicy()
    #expect(throws: PolicyError.unknownApp("ghost")) { try policy.handle(request.event("ghost", at: t(1))) }
    #expect(policy.apps.isEmpty)
  }

  @Test func launchEmitsStateChangeThenSpawnAndSpawnedLandsInTheForeground() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    let launch = try policy.handle(.launch(app: "a", foreground: true, at: t(1)))
    #expect(
      launch == [
        .stateChanged(app: "a", from: .notRunning, to: .launching, band: .foreground),
        .spawn(app: "a", launch: 1, spec: LaunchSpec(command: ["a"])),
      ])
    let spawned = policy.observe(.spawned(app: "a", pid: 42, at: t(2)))
    #expect(
      spawned.withoutEvents == [.stateChanged(app: "a", from: .launching, to: .foregroundActive, band: .foreground)])
    let app = try #require(policy.app(named: "a"))
    #expect(app.pid == 42)
    #expect(app.spawnedAt == t(2))
    #expect(app.launch == 1)
  }

  @Test func backgroundLaunchLandsInTheBackground() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 42, at: t(1))
    #expect(policy.app(named: "a")?.state == .background)
    #expect(policy.app(named: "a")?.band == .background)
  }

  @Test func activateWhileLaunchingSendsTheLaunchToTheForeground() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(1)))
    #expect(try policy.handle(.activate(app: "a", at: t(1))) == [])
    policy.observe(.spawned(app: "a", pid: 42, at: t(2)))
    #expect(policy.app(named: "a")?.state == .foregroundActive)
  }

  @Test func spawnFailureTerminatesWithoutARecordAndKeepsTheLaunchNumber() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(1)))
    let failed = policy.observe(.spawnFailed(app: "a", message: "no such file", at: t(2)))
    #expect(failed == [.stateChanged(app: "a", from: .launching, to: .terminated, band: .idle)])
    #expect(policy.app(named: "a")?.launch == 1)
    #expect(policy.app(named: "a")?.pid == nil)
    let relaunch = try policy.handle(.launch(app: "a", foreground: true, at: t(3)))
    #expect(relaunch.last == .spawn(app: "a", launch: 2, spec: LaunchSpec(command: ["a"])))
  }

  @Test func configureNeverLowersTheLaunchCounter() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 7))
    #expect(policy.app(named: "a")?.launch == 7)
    _ = try policy.handle(.configure(app: "a", bandFloor: .mail, launchCount: 3))
    #expect(policy.app(named: "a")?.launch == 7)
    #expect(policy.app(named: "a")?.bandFloor == .mail)
    #expect(policy.app(named: "a")?.state == .notRunning)
    let launch = try policy.handle(.launch(app: "a", foreground: false, at: t(1)))
    #expect(launch.last == .spawn(app: "a", launch: 8, spec: LaunchSpec(command: ["a"])))
  }

  @Test func appsAreListedByName() throws {
    var policy = JetsamPolicy()
    for name in ["c", "a", "b"] { _ = try policy.handle(.configure(app: name, bandFloor: nil, launchCount: 0)) }
    #expect(policy.apps.map(\.name) == ["a", "b", "c"])
  }

  @Test func activatingASuspendedAppResumesItFirst() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    let actions = try policy.handle(.activate(app: "a", at: t(2)))
    #expect(
      actions.withoutEvents == [
        .resume(app: "a", pid: 10),
        .stateChanged(app: "a", from: .suspended, to: .background, band: .background),
        .stateChanged(app: "a", from: .background, to: .foregroundInactive, band: .foreground),
        .stateChanged(app: "a", from: .foregroundInactive, to: .foregroundActive, band: .foreground),
      ])
  }

  @Test func suspendingAForegroundAppGoesThroughTheBackgroundThenStopsIt() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    let actions = try policy.handle(.suspend(app: "a", at: t(2)))
    #expect(
      actions.withoutEvents == [
        .stateChanged(app: "a", from: .foregroundActive, to: .foregroundInactive, band: .foreground),
        .stateChanged(app: "a", from: .foregroundInactive, to: .background, band: .background),
        .stateChanged(app: "a", from: .background, to: .suspended, band: .idle),
        .suspend(app: "a", pid: 10),
        .sampleSuspendedMemory([AppProcessRef(app: "a", pid: 10)]),
      ])
  }

  @Test func resumeReturnsASuspendedAppToTheBackground() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    let actions = try policy.handle(.resume(app: "a", at: t(2)))
    #expect(
      actions == [
        .resume(app: "a", pid: 10), .stateChanged(app: "a", from: .suspended, to: .background, band: .background),
      ])
  }
}
