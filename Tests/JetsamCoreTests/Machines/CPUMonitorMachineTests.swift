import JetsamValues
import Testing

@testable import JetsamCore

/// The CPU monitor driven alone, without a policy: its watches, its reading schedule and its judgements.
@Suite("CPU monitor, alone")
struct CPUMonitorMachineTests {
  /// Fatal at 50 % of a core over 12 s: readings every second.
  static let fatal = CPUStateLimits(fatal: CPUBudget(limitPercent: 50, window: .seconds(12)))
  static let nonFatal = CPUStateLimits(nonFatal: CPUBudget(limitPercent: 50, window: .seconds(12)))

  static func subject(_ state: LifecycleState, killed: Bool = false, processing: Bool = false) -> CPUMonitor.Subject {
    CPUMonitor.Subject(pid: 1, state: state, killRequested: killed, runsProcessingTask: processing, ownLimits: nil)
  }

  @Test("limits follow the state, the kill asked and a processing task while charging")
  func limitsFollowTheSubject() {
    let defaults = CPUMonitorConfig(background: Self.fatal, foreground: nil)
    #expect(
      CPUMonitor.limits(for: Self.subject(.background), deviceCharging: false, defaults: defaults)?.state == .background
    )
    #expect(CPUMonitor.limits(for: Self.subject(.foregroundActive), deviceCharging: false, defaults: defaults) == nil)
    #expect(CPUMonitor.limits(for: Self.subject(.suspended), deviceCharging: false, defaults: defaults) == nil)
    #expect(
      CPUMonitor.limits(for: Self.subject(.background, killed: true), deviceCharging: false, defaults: defaults) == nil)
    let processing = Self.subject(.background, processing: true)
    #expect(CPUMonitor.limits(for: processing, deviceCharging: true, defaults: defaults) == nil)
    #expect(CPUMonitor.limits(for: processing, deviceCharging: false, defaults: defaults) != nil)
  }

  @Test("the first watch starts the rounds; a later one is read alone; none left ends them")
  func schedule() {
    var monitor = CPUMonitor()
    #expect(monitor.nextDeadline == nil)
    monitor.rewatch("a", pid: 1, wanted: (Self.fatal, .background), at: t(0))
    #expect(monitor.nextDeadline == t(0))
    let due1 = monitor.tick(at: t(0))
    #expect(due1 == [AppProcessRef(app: "a", pid: 1)])
    #expect(monitor.nextRoundAt == t(1), "a twelfth of the 12 s window")
    monitor.rewatch("b", pid: 2, wanted: (Self.fatal, .background), at: t(0, ms: 300))
    #expect(monitor.nextDeadline == t(0, ms: 300), "b's anchor, alone")
    let due2 = monitor.tick(at: t(0, ms: 300))
    #expect(due2 == [AppProcessRef(app: "b", pid: 2)])
    #expect(monitor.nextDeadline == t(1), "the round kept its cadence")
    monitor.rewatch("a", pid: 1, wanted: (Self.fatal, .background), at: t(0, ms: 500))
    #expect(monitor.nextDeadline == t(1), "the same limits are no new watch")
    monitor.rewatch("a", pid: 1, wanted: nil, at: t(0, ms: 600))
    monitor.rewatch("b", pid: nil, wanted: nil, at: t(0, ms: 600))
    #expect(!monitor.isWatching("a") && !monitor.isWatching("b"))
    let due3 = monitor.tick(at: t(1))
    #expect(due3.isEmpty)
    #expect(monitor.nextDeadline == nil, "nothing watched: no timer")
  }

  @Test("the fatal limit reached is fatal; a reading of another process is not taken")
  func fatalLimit() {
    var monitor = CPUMonitor()
    monitor.rewatch("a", pid: 1, wanted: (Self.fatal, .background), at: t(0))
    _ = monitor.tick(at: t(0))
    let taken1 = monitor.add(CPUSample(app: "a", pid: 9, cpuSeconds: 0), at: t(0))
    #expect(!taken1)
    let taken2 = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 0), at: t(0))
    #expect(taken2)
    let judgement1 = monitor.judge("a", at: t(0))
    #expect(judgement1 == nil)
    let taken3 = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 6), at: t(12))
    #expect(taken3)
    guard case .fatal(let report) = monitor.judge("a", at: t(12)) else {
      Issue.record("6 s of CPU in 12 s is 50 %: fatal")
      return
    }
    #expect(report.fatal && report.cpuSeconds == 6 && report.state == .background)
  }

  @Test("the non-fatal limit is reported once per run over it")
  func nonFatalOncePerRun() {
    var monitor = CPUMonitor()
    monitor.rewatch("a", pid: 1, wanted: (Self.nonFatal, .background), at: t(0))
    _ = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 0), at: t(0))
    _ = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 7), at: t(12))
    guard case .exceeded(let report) = monitor.judge("a", at: t(12)) else {
      Issue.record("over the non-fatal limit: an exception")
      return
    }
    #expect(!report.fatal)
    _ = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 14), at: t(24))
    let judgement2 = monitor.judge("a", at: t(24))
    #expect(judgement2 == nil, "still over: not again")
    _ = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 14), at: t(36))
    let judgement3 = monitor.judge("a", at: t(36))
    #expect(judgement3 == nil, "under again")
    _ = monitor.add(CPUSample(app: "a", pid: 1, cpuSeconds: 21), at: t(48))
    let judgement4 = monitor.judge("a", at: t(48))
    #expect(judgement4 != nil, "a new run over it is reported")
  }
}
