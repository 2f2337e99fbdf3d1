import Foundation
import JetsamCore
import JetsamValues
import Testing

/// The CPU monitor: which apps are sampled and when, the trailing windows, the fatal limit's kill as soon as it is
/// reached (as iOS does) and the non-fatal limit's exception.
@Suite("CPU monitor")
struct CPUMonitorTests {
  /// Background: fatal at 50 % of a core over 12 s (sampled every second); foreground: non-fatal at 90 % over 12 s.
  static func policy(background: CPUStateLimits = fatalOnly) -> JetsamPolicy {
    var config = testConfig()
    config.cpu = CPUMonitorConfig(background: background, foreground: CPUBudget(limitPercent: 90, window: .seconds(12)))
    return JetsamPolicy(config: config)
  }

  static let fatalOnly = CPUStateLimits(fatal: CPUBudget(limitPercent: 50, window: .seconds(12)))
  static let nonFatalOnly = CPUStateLimits(nonFatal: CPUBudget(limitPercent: 50, window: .seconds(12)))

  /// The apps a tick at `at` asks to sample (nil: no sampling round).
  static func sampled(_ policy: inout JetsamPolicy, at: Instant) -> [AppProcessRef]? {
    for action in policy.observe(.tick(at: at)) { if case .sampleCPU(let apps) = action { return apps } }
    return nil
  }

  /// Feeds app `a` (pid 10) a reading of `cpu` CPU-seconds at `at`.
  @discardableResult
  static func reading(_ policy: inout JetsamPolicy, _ cpu: Double, at: Instant) -> [PolicyAction] {
    policy.observe(.cpuSampled([CPUSample(app: "a", pid: 10, cpuSeconds: cpu)], at: at))
  }

  /// The report of a CPU exception among `actions`.
  static func exception(_ actions: [PolicyAction]) -> CPUUsageReport? {
    for action in actions { if case .diagnose(_, _, .cpuException(let report)) = action { return report } }
    return nil
  }

  @Test("only running apps whose state has limits are sampled, on one cadence, and none costs nothing")
  func whoIsSampled() throws {
    var config = testConfig()
    config.cpu = CPUMonitorConfig(background: Self.fatalOnly, foreground: nil)
    var policy = JetsamPolicy(config: config)
    try policy.start("fg", pid: 1, at: t(0), foreground: true)
    #expect(policy.nextDeadline == nil, "foreground has no limit here")
    try policy.start("bg", pid: 2, at: t(0))
    try policy.startSuspended("s", pid: 3, at: t(0))
    #expect(policy.nextDeadline == t(0), "a new watch is sampled at once, as its window's anchor")
    #expect(Self.sampled(&policy, at: t(0)) == [AppProcessRef(app: "bg", pid: 2)])
    #expect(policy.nextDeadline == t(1), "then every twelfth of the window")
    _ = try policy.handle(.suspend(app: "bg", at: t(0, ms: 500)))
    policy.observe(.suspendCompleted(app: "bg", at: t(0, ms: 500)))
    #expect(Self.sampled(&policy, at: t(1)) == nil)
    #expect(policy.nextDeadline == nil, "no app watched: no timer")
  }

  @Test("a watch started between rounds reads that app alone at once; the round keeps its cadence for the rest")
  func anchorsBetweenRounds() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 1, at: t(0))
    #expect(Self.sampled(&policy, at: t(0)) == [AppProcessRef(app: "a", pid: 1)])
    // A launch storm: each new app is read on its own, never every watched app at every launch.
    for (index, name) in ["b", "c", "d"].enumerated() {
      let at = t(0, ms: 200 * Int64(index + 1))
      try policy.start(name, pid: Int32(index + 2), at: at)
      #expect(policy.nextDeadline == at)
      #expect(Self.sampled(&policy, at: at) == [AppProcessRef(app: name, pid: Int32(index + 2))])
    }
    #expect(policy.nextDeadline == t(1), "the round keeps its cadence")
    #expect(Self.sampled(&policy, at: t(1))?.map(\.app) == ["a", "b", "c", "d"])
  }

  @Test("the fatal limit: as soon as the window's CPU time reaches it, the exception's stacks and then the kill")
  func fatalKillsAtOnce() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    Self.reading(&policy, 100, at: t(0))
    // 1 CPU-second per second: 6 s allowed in 12 s, reached after 6 s, half-way through the first window.
    for second in 1...5 { #expect(Self.reading(&policy, 100 + Double(second), at: t(Int64(second))).isEmpty) }
    let actions = Self.reading(&policy, 106, at: t(6))
    let expected = CPUUsageReport(
      state: .background, cpuSeconds: 6, windowSeconds: 12, sampledSeconds: 6, limitPercent: 50, fatal: true)
    #expect(
      actions == [
        .diagnose(app: "a", pid: 10, .cpuException(expected)),
        .kill(
          app: "a", pid: 10, reason: .cpuResourceLimit,
          decision: KillInFlight(kill: .cpuLimit(expected), level: .normal, availableBytes: 0)),
      ], "the stacks are asked for first: the shell takes them before it sends the SIGKILL")
    #expect(
      expected.summary
        == "6 seconds cpu time over 6 seconds (100% cpu average), exceeding limit of 50% cpu over 12 seconds")
    #expect(Self.reading(&policy, 107, at: t(7)).isEmpty, "nothing more for an app on its way out")
    let record = try #require(policy.exits("a", sigkill, at: t(7, ms: 5)).records.first)
    #expect(record.cause.reason == .cpuResourceLimit && record.cause.terminationReason == "JETSAM cpu-limit")
    #expect(record.evidence.cpuUsage == expected)
  }

  @Test("an app burning fast is read again when it would reach the fatal limit, not only at the next round")
  func readAgainBeforeTheLimit() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    #expect(Self.sampled(&policy, at: t(0)) != nil)
    Self.reading(&policy, 0, at: t(0))
    #expect(Self.sampled(&policy, at: t(1)) != nil, "the round at t(1); the next at t(2)")
    // Four cores' worth in one second: 4 of the 6 allowed; at that rate the rest takes half a second.
    #expect(Self.reading(&policy, 4, at: t(1)).isEmpty)
    #expect(policy.nextDeadline == t(1, ms: 500))
    #expect(Self.sampled(&policy, at: t(1, ms: 500)) == [AppProcessRef(app: "a", pid: 10)])
    #expect(Self.exception(Self.reading(&policy, 6, at: t(1, ms: 500)))?.fatal == true)
    // Hovering just under the limit costs at most eight readings of its own a round.
    var hovering = Self.policy()
    try hovering.start("a", pid: 10, at: t(0))
    _ = Self.sampled(&hovering, at: t(0))
    Self.reading(&hovering, 0, at: t(0))
    _ = Self.sampled(&hovering, at: t(1))
    Self.reading(&hovering, 5.99, at: t(1))
    #expect(hovering.nextDeadline == t(1, ms: 125))
  }

  @Test("the window slides: usage before it no longer counts, and its start is interpolated between samples")
  func slidingWindow() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    // A burst of 5.5 CPU-seconds in the first second, then idle: within the limit however the window slides.
    Self.reading(&policy, 0, at: t(0))
    Self.reading(&policy, 5.5, at: t(1))
    for second in 2...30 { #expect(Self.reading(&policy, 5.5, at: t(Int64(second))).isEmpty) }
    // Busy again from t(30): half a core. The 12-second window ending at t(42) holds 6 CPU-seconds: the limit.
    var actions: [PolicyAction] = []
    var cpu = 5.5
    var second: Int64 = 30
    while actions.isEmpty && second < 60 {
      second += 1
      cpu += 0.5
      actions = Self.reading(&policy, cpu, at: t(second))
    }
    #expect(second == 42)
    let report = try #require(Self.exception(actions))
    #expect(report.cpuSeconds == 6 && report.sampledSeconds == 12 && report.fatal)
  }

  @Test("the non-fatal limit: one exception per run over it, the app lives, and a later run is a new exception")
  func nonFatalReportsOnly() throws {
    var policy = Self.policy(background: Self.nonFatalOnly)
    try policy.start("a", pid: 10, at: t(0))
    Self.reading(&policy, 0, at: t(0))
    let first = Self.reading(&policy, 7, at: t(1))
    #expect(first.count == 1 && Self.exception(first)?.fatal == false, "7 CPU-seconds at once: reached")
    #expect(Self.reading(&policy, 8, at: t(2)).isEmpty, "one exception per run over the limit")
    // Idle for the window: back under from t(13) on.
    for second in 3...13 { #expect(Self.reading(&policy, 8, at: t(Int64(second))).killed.isEmpty) }
    #expect(Self.reading(&policy, 8, at: t(14)).isEmpty)
    #expect(policy.app(named: "a")?.state == .background)
    #expect(Self.exception(Self.reading(&policy, 15, at: t(15)))?.fatal == false)
  }

  @Test("both limits: the non-fatal one is reported on the way to the fatal one")
  func bothLimits() throws {
    var policy = Self.policy(
      background: CPUStateLimits(
        fatal: CPUBudget(limitPercent: 80, window: .seconds(12)),
        nonFatal: CPUBudget(limitPercent: 25, window: .seconds(36))))
    try policy.start("a", pid: 10, at: t(0))
    Self.reading(&policy, 0, at: t(0))
    var reports: [CPUUsageReport] = []
    var killedAt: Int64?
    for second in 1...20 {
      let actions = Self.reading(&policy, Double(second), at: t(Int64(second)))
      if let report = Self.exception(actions) { reports.append(report) }
      if !actions.killed.isEmpty { killedAt = Int64(second) }
      if killedAt != nil { break }
    }
    // 25 % over 36 s is 9 CPU-seconds (reached at t(9)); 80 % over 12 s is 9.6 (reached at t(10)).
    #expect(reports.map(\.fatal) == [false, true])
    #expect(reports.first?.cpuSeconds == 9)
    #expect(killedAt == 10)
  }

  @Test("a foreground app over its limit is reported, never killed")
  func foregroundReportedOnly() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    Self.reading(&policy, 0, at: t(0))
    var exceptions = 0
    for second in 1...40 {
      let actions = Self.reading(&policy, Double(second), at: t(Int64(second)))
      #expect(actions.killed.isEmpty)
      exceptions += actions.count
    }
    #expect(exceptions == 1, "1 CPU-second per second reaches 90 % at 10.8 s: one run over the limit")
  }

  @Test("a state change starts a new window on the new state's limits")
  func stateChangeStartsOver() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    Self.reading(&policy, 0, at: t(0))
    for second in 1...5 { Self.reading(&policy, Double(second), at: t(Int64(second))) }
    _ = try policy.handle(.moveToBackground(app: "a", at: t(5, ms: 500)))
    // The background window starts with the next reading: the 5 foreground seconds do not count against it.
    #expect(Self.reading(&policy, 6, at: t(6)).isEmpty)
    for second in 7...11 { #expect(Self.reading(&policy, Double(second), at: t(Int64(second))).isEmpty) }
    #expect(Self.reading(&policy, 12, at: t(12)).killed == ["a"], "6 CPU-seconds since t(6): the background 6")
  }

  @Test("an app's own limits stand over the daemon-wide ones")
  func perAppLimits() throws {
    var policy = Self.policy()
    var settings = AppSettings(launch: LaunchSpec(command: ["a"]))
    settings.cpuLimits = CPUMonitorConfig(background: Self.nonFatalOnly)
    _ = try policy.handle(.configure(app: "a", settings: settings, launchCount: 0))
    _ = try policy.handle(.launch(app: "a", foreground: false, at: t(0)))
    _ = try policy.handle(.spawned(app: "a", pid: 10, at: t(0)))
    Self.reading(&policy, 0, at: t(0))
    var actions: [PolicyAction] = []
    for second in 1...30 { actions += Self.reading(&policy, Double(second), at: t(Int64(second))) }
    #expect(actions.killed.isEmpty, "its own limit is non-fatal only")
    #expect(actions.count == 1 && Self.exception(actions)?.fatal == false)
  }

  @Test("a processing task is exempt while the device is idle and charging, from the CPU monitor and the budget")
  func processingWhileCharging() throws {
    var config = Self.policy().config
    config.lifecycle.backgroundTaskBudget = .seconds(30)
    var policy = JetsamPolicy(config: config)
    try policy.start("a", pid: 10, at: t(0))
    _ = policy.observe(.setCharging(true, at: t(0)))
    #expect(policy.deviceCharging)
    // The app answers its didFinishLaunching (its first line makes it watched).
    _ = policy.observe(.appMessage(app: "a", pid: 10, message: .acknowledge(event: 1), at: t(0)))
    let begin = AppMessage.beginBackgroundTask(requestID: 1, name: "reindex", kind: .processing)
    _ = policy.observe(.appMessage(app: "a", pid: 10, message: begin, at: t(0)))
    #expect(Self.sampled(&policy, at: t(0)) == nil, "not watched while the task runs on a charging device")
    // Neither the CPU monitor nor the 30 s budget catches up with it.
    #expect(Self.reading(&policy, 1000, at: t(100)).isEmpty)
    #expect(policy.observe(.tick(at: t(100))).isEmpty)
    #expect(policy.nextDeadline == nil)
    // Unplugged: an ordinary task again, long past its budget, and watched from now.
    _ = policy.observe(.setCharging(false, at: t(101)))
    let tick = policy.observe(.tick(at: t(101)))
    #expect(tick.events.map(\.kind) == [.backgroundTaskWillExpire])
    #expect(tick.contains(.sampleCPU([AppProcessRef(app: "a", pid: 10)])))
  }

  @Test("a cpuLimit kill in flight survives a restart in the state file, figures and all; older reports read back")
  func killInFlightCodable() throws {
    let report = CPUUsageReport(
      state: .background, cpuSeconds: 48, windowSeconds: 60, sampledSeconds: 52, limitPercent: 80, fatal: true)
    #expect(
      report.summary
        == "48 seconds cpu time over 52 seconds (92% cpu average), exceeding limit of 80% cpu over 60 seconds")
    let kill = KillInFlight(kill: .cpuLimit(report), level: .normal, availableBytes: 1)
    let encoded = try JSONEncoder().encode(kill)
    #expect(try JSONDecoder().decode(KillInFlight.self, from: encoded) == kill)
    #expect(String(decoding: encoded, as: UTF8.self).contains(#""summary":"48 seconds cpu time"#))
    let older =
      #"{"state":"background","cpuSeconds":50,"windowSeconds":60,"sampledSeconds":60,"limitPercent":80,"overSeconds":61}"#
    #expect(try JSONDecoder().decode(CPUUsageReport.self, from: Data(older.utf8)).fatal)
  }
}
