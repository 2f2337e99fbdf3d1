import Foundation
import JetsamCore
import JetsamValues
import Testing

/// The CPU monitor: which apps are sampled and when, the sliding window, the exception and the kill.
@Suite("CPU monitor")
struct CPUMonitorTests {
  /// 50 % of a core over 12 s (sampled every second), killed 3 s after the exception; foreground 90 % over 12 s,
  /// reported only.
  static func policy() -> JetsamPolicy {
    var config = testConfig()
    config.cpu = CPUMonitorConfig(
      background: CPUBudget(limitPercent: 50, window: .seconds(12), killAfter: .seconds(3)),
      foreground: CPUBudget(limitPercent: 90, window: .seconds(12), killAfter: nil))
    return JetsamPolicy(config: config)
  }

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

  @Test("only running apps whose state has a budget are sampled, on one cadence, and none costs nothing")
  func whoIsSampled() throws {
    var config = testConfig()
    config.cpu = CPUMonitorConfig(
      background: CPUBudget(limitPercent: 50, window: .seconds(12), killAfter: nil), foreground: nil)
    var policy = JetsamPolicy(config: config)
    try policy.start("fg", pid: 1, at: t(0), foreground: true)
    #expect(policy.nextDeadline == nil, "foreground has no budget here")
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

  @Test("over the budget: a CPU exception first, then a cpuResourceLimit kill once it stayed over for killAfter")
  func exceptionThenKill() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    Self.reading(&policy, 100, at: t(0))
    // 1 CPU-second per second: 6 s allowed in 12 s, crossed after 6 s.
    for second in 1...6 { #expect(Self.reading(&policy, 100 + Double(second), at: t(Int64(second))).isEmpty) }
    let exception = Self.reading(&policy, 107, at: t(7))
    let expected = CPUUsageReport(
      state: "background", cpuSeconds: 7, windowSeconds: 12, sampledSeconds: 7, limitPercent: 50, overSeconds: 0)
    #expect(exception == [.diagnose(app: "a", pid: 10, .cpuException(expected))])
    #expect(Self.reading(&policy, 108, at: t(8)).isEmpty, "one exception per run over the budget")
    #expect(Self.reading(&policy, 109, at: t(9)).isEmpty)
    let kill = Self.reading(&policy, 110, at: t(10))
    #expect(kill == [.kill(app: "a", pid: 10, reason: .cpuResourceLimit, snapshot: nil)])
    let record = try #require(policy.exits("a", sigkill, at: t(10, ms: 5)).records.first)
    #expect(record.reason == .cpuResourceLimit && record.terminationReason == "JETSAM cpu-limit")
    #expect(
      record.cpuUsage
        == CPUUsageReport(
          state: "background", cpuSeconds: 10, windowSeconds: 12, sampledSeconds: 10, limitPercent: 50, overSeconds: 3))
  }

  @Test("the window slides: usage before it no longer counts, and its start is interpolated between samples")
  func slidingWindow() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    // A burst of 5.5 CPU-seconds in the first second, then idle: within budget however the window slides.
    Self.reading(&policy, 0, at: t(0))
    Self.reading(&policy, 5.5, at: t(1))
    for second in 2...30 { #expect(Self.reading(&policy, 5.5, at: t(Int64(second))).isEmpty) }
    // Busy again from t(30): 0.6 per second. The window [t(20.5), t(32.5)] … crossed once 6 s are used in 12 s.
    var actions: [PolicyAction] = []
    var cpu = 5.5
    var second: Int64 = 30
    while actions.isEmpty && second < 60 {
      second += 1
      cpu += 0.6
      actions = Self.reading(&policy, cpu, at: t(second))
    }
    // 0.6 × n > 6 first when n = 11 (6.6 CPU-seconds in the 12-second window ending at t(41)).
    #expect(second == 41)
    if case .diagnose(_, _, .cpuException(let report)) = actions.first {
      #expect(abs(report.cpuSeconds - 6.6) < 1e-9 && report.sampledSeconds == 12)
    } else {
      Issue.record("expected a CPU exception, got \(actions)")
    }
  }

  @Test("back under the budget ends the run: no kill, and a later run is a new exception")
  func backUnder() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0))
    Self.reading(&policy, 0, at: t(0))
    #expect(Self.reading(&policy, 7, at: t(1)).count == 1, "7 CPU-seconds at once: over")
    // Idle for the window: back under at t(13), before killAfter would have run out had it stayed over.
    Self.reading(&policy, 7, at: t(2))
    for second in 3...13 { _ = Self.reading(&policy, 7, at: t(Int64(second))) }
    #expect(Self.reading(&policy, 7, at: t(14)).isEmpty)
    #expect(policy.app(named: "a")?.state == .background)
    let again = Self.reading(&policy, 14, at: t(15))
    #expect(
      again.count == 1
        && again.first.map { if case .diagnose(_, _, .cpuException) = $0 { true } else { false } } == true)
  }

  @Test("a foreground app over its budget is reported, never killed")
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
    #expect(exceptions == 1, "1 CPU-second per second is over 90 % from 10.8 s on, one run over the budget")
  }

  @Test("a state change starts a new window on the new state's budget")
  func stateChangeStartsOver() throws {
    var policy = Self.policy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    Self.reading(&policy, 0, at: t(0))
    for second in 1...5 { Self.reading(&policy, Double(second), at: t(Int64(second))) }
    _ = try policy.handle(.moveToBackground(app: "a", at: t(5, ms: 500)))
    // The background window starts with the next reading: the 5 foreground seconds do not count against it.
    #expect(Self.reading(&policy, 6, at: t(6)).isEmpty)
    for second in 7...12 { #expect(Self.reading(&policy, Double(second), at: t(Int64(second))).isEmpty) }
    #expect(Self.reading(&policy, 13, at: t(13)).count == 1, "7 CPU-seconds since t(6): over the background 6")
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

  @Test("a cpuLimit kill in flight survives a restart in the state file, figures and all")
  func killInFlightCodable() throws {
    let report = CPUUsageReport(
      state: "background", cpuSeconds: 50, windowSeconds: 60, sampledSeconds: 60, limitPercent: 80, overSeconds: 61)
    let kill = KillInFlight(kill: .cpuLimit(report), level: .normal, availableBytes: 1)
    let encoded = try JSONEncoder().encode(kill)
    #expect(try JSONDecoder().decode(KillInFlight.self, from: encoded) == kill)
  }
}
