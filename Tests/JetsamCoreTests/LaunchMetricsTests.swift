import Foundation
import JetsamCore
import JetsamValues
import Testing

/// Per-launch metrics measured by the core from lifecycle events: time to first draw, resume times, hangs, time in
/// each state, the launch's reason; durable in the exit record and the saved app.
@Suite("Launch metrics")
struct LaunchMetricsTests {
  static func policy() -> JetsamPolicy {
    var config = testConfig(grace: nil)
    config.lifecycle = AppChannelTests.timings
    return JetsamPolicy(config: config)
  }

  /// Acknowledges every event delivered to `app` in `actions`, at `at`.
  static func acknowledgeAll(
    _ policy: inout JetsamPolicy, _ actions: [PolicyAction], app: String = "a", pid: Int32 = 10, at: Instant
  ) {
    for case .deliver(let target, _, let event) in actions where target == app && event.kind.needsAcknowledgement {
      policy.observe(.appMessage(app: app, pid: pid, message: .acknowledge(event: event.id), at: at))
    }
  }

  static func record(_ actions: [PolicyAction]) -> ExitRecord? {
    actions.compactMap { if case .recordExit(let record) = $0 { record } else { nil } }.first
  }

  /// Launches a speaking app into the foreground at t(0): didFinishLaunching acknowledged at 100 ms, didBecomeActive
  /// at `activeAt`.
  static func launched(activeAt: Instant) throws -> JetsamPolicy {
    var policy = Self.policy()
    _ = try policy.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: true, at: t(0)))
    let actions = policy.observe(.spawned(app: "a", pid: 10, at: t(0)))
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    let launchID = try #require(AppChannelTests.lastEventID(actions, .didFinishLaunching))
    let activeID = try #require(AppChannelTests.lastEventID(actions, .didBecomeActive))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: launchID), at: t(0, ms: 100)))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: activeID), at: activeAt))
    return policy
  }

  @Test("time to first draw runs from the spawn to the acknowledged first didBecomeActive; 200 ms is no hang")
  func timeToFirstDraw() throws {
    let policy = try Self.launched(activeAt: t(0, ms: 300))
    let metrics = try #require(policy.launchMetrics(of: "a", at: t(1)))
    #expect(metrics.timeToFirstDrawSeconds == 0.3)
    #expect(metrics.hangTimes.isEmpty, "didBecomeActive's handler ran 200 ms (from 100 ms): under 250 ms")
    #expect(metrics.afterExit == nil, "a fresh launch")
    #expect(metrics.foregroundSeconds == 1)
  }

  @Test("a handler of 400 ms is a hang, counted in the 250–500 ms bucket")
  func hang() throws {
    let policy = try Self.launched(activeAt: t(0, ms: 500))
    let metrics = try #require(policy.launchMetrics(of: "a", at: t(1)))
    #expect(metrics.hangTimes.buckets == [.init(startMilliseconds: 250, endMilliseconds: 500, count: 1)])
  }

  @Test("a return from the background: from willEnterForeground to the acknowledged didBecomeActive")
  func resume() throws {
    var policy = try Self.launched(activeAt: t(0, ms: 300))
    Self.acknowledgeAll(&policy, try policy.handle(.moveToBackground(app: "a", at: t(3))), at: t(3))
    _ = try policy.handle(.suspend(app: "a", at: t(4)))
    policy.observe(.suspendCompleted(app: "a", at: t(4)))
    let back = try policy.handle(.activate(app: "a", at: t(8)))
    let enterID = try #require(AppChannelTests.lastEventID(back, .willEnterForeground))
    let activeID = try #require(AppChannelTests.lastEventID(back, .didBecomeActive))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: enterID), at: t(8, ms: 40)))
    policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: activeID), at: t(8, ms: 120)))
    let record = try #require(Self.record(policy.exits("a", .exited(code: 0), at: t(10))))
    let metrics = try #require(record.launchMetrics)
    #expect(metrics.resumeTimes.buckets == [.init(startMilliseconds: 100, endMilliseconds: 250, count: 1)])
    #expect(metrics.foregroundSeconds == 5, "3 s, then 2 s after the return")
    #expect(metrics.backgroundSeconds == 1, "from 3 s to the suspension at 4 s; suspended time is neither")
    #expect(metrics.backgroundAudioSeconds == 0)
    #expect(metrics.timeToFirstDrawSeconds == 0.3)
  }

  @Test("an app that does not speak the protocol has no launch or resume time, but its time in each state")
  func silentApp() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    _ = try policy.handle(.moveToBackground(app: "a", at: t(2)))
    _ = try policy.handle(.activate(app: "a", at: t(3)))
    let record = try #require(Self.record(policy.exits("a", .exited(code: 0), at: t(4))))
    let metrics = try #require(record.launchMetrics)
    #expect(metrics.timeToFirstDrawSeconds == nil)
    #expect(metrics.resumeTimes.isEmpty && metrics.hangTimes.isEmpty)
    #expect(metrics.foregroundSeconds == 3 && metrics.backgroundSeconds == 1)
  }

  @Test("background time with the audio band lift is background audio time too")
  func backgroundAudio() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true, floor: .audio)
    _ = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    #expect(policy.launchMetrics(of: "a", at: t(4))?.backgroundAudioSeconds == 3, "the current stint, so far")
    let record = try #require(Self.record(policy.exits("a", .exited(code: 0), at: t(6))))
    #expect(record.launchMetrics?.backgroundSeconds == 5)
    #expect(record.launchMetrics?.backgroundAudioSeconds == 5)
    #expect(record.launchMetrics?.foregroundSeconds == 1)
  }

  @Test("the watchdog's kill counts its hang; a cold launch after a jetsam kill says so")
  func watchdogHangAndReason() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    policy.observe(.appMessage(app: "a", pid: 10, message: .hello, at: t(0)))
    // didFinishLaunching is never acknowledged: its 20 s watchdog fires.
    let killed = policy.observe(.tick(at: t(20)))
    #expect(AppChannelTests.kills(killed) == ["a:appWatchdog"])
    let record = try #require(Self.record(policy.exits("a", sigkill, at: t(20))))
    #expect(
      record.launchMetrics?.hangTimes.buckets == [.init(startMilliseconds: 20000, endMilliseconds: 60000, count: 1)])
    policy.observe(.exitRecorded(record))

    try policy.start("b", pid: 20, at: t(21))
    _ = try policy.handle(.kill(app: "b", reason: .memoryPressure, at: t(22)))
    let b = try #require(Self.record(policy.exits("b", sigkill, at: t(22))))
    policy.observe(.exitRecorded(b))
    _ = try policy.handle(.launch(app: "b", foreground: true, at: t(23)))
    policy.observe(.spawned(app: "b", pid: 21, at: t(23)))
    #expect(policy.launchMetrics(of: "b", at: t(24))?.afterExit == .memoryPressure)
  }

  @Test("a running app's figures are saved and adopted by a successor; old records and saved apps still read")
  func durable() throws {
    var policy = try Self.launched(activeAt: t(0, ms: 500))
    Self.acknowledgeAll(&policy, try policy.handle(.moveToBackground(app: "a", at: t(3))), at: t(3))
    let saved = try #require(policy.savedApps.first)
    let data = try JSONEncoder().encode(saved)
    let read = try JSONDecoder().decode(AppStatus.self, from: data)
    #expect(read.launchMetrics == saved.launchMetrics)
    var successor = Self.policy()
    successor.observe(.adopt(app: read, at: t(5)))
    let metrics = try #require(successor.launchMetrics(of: "a", at: t(5)))
    #expect(metrics.foregroundSeconds == 3 && metrics.timeToFirstDrawSeconds == 0.5)
    #expect(metrics.hangTimes.total == 1)

    let old =
      #"{"launch":1,"name":"a","state":"background","stateEnteredAt":{"nanoseconds":0},"bandEnteredAt":{"nanoseconds":0},"pid":3}"#
    #expect(try JSONDecoder().decode(AppStatus.self, from: Data(old.utf8)).launchMetrics == nil)
    let empty = try JSONDecoder().decode(LaunchMetrics.self, from: Data("{}".utf8))
    #expect(empty == LaunchMetrics())
  }
}
