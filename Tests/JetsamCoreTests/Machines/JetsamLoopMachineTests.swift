import JetsamValues
import Testing

@testable import JetsamCore

/// The jetsam loop driven alone: its level, its victims off an app table it never changes, and its hold on itself.
@Suite("Jetsam loop, alone")
struct JetsamLoopMachineTests {
  /// A table of running apps by name and state, each with a process (pid 1, 2, … in the order given).
  static func apps(_ states: [(String, LifecycleState)]) -> AppTable {
    var apps = AppTable()
    for (offset, (name, state)) in states.enumerated() {
      var app = TrackedApp(name: name, launch: 1, at: t(Int64(offset)))
      app.state = state
      app.process = RunningProcess(pid: Int32(offset + 1), spawnedAt: t(Int64(offset)), previousDigest: nil)
      apps[name] = app
    }
    return apps
  }

  static let thresholds = testConfig().thresholds

  @Test("the level follows the samples unless forced")
  func level() {
    var loop = JetsamLoop()
    loop.sampled(available: Available.urgent, thresholds: Self.thresholds)
    #expect(loop.level == .urgent && loop.availableBytes == Available.urgent)
    loop.force(.normal)
    #expect(loop.level == .normal)
    #expect(loop.levelChange(from: .urgent) == [.levelChanged(from: .urgent, to: .normal, available: Available.urgent)])
    loop.force(nil)
    #expect(loop.level == .urgent && loop.levelChange(from: .urgent).isEmpty)
  }

  @Test("suspended apps go first; the foreground only at critical; a kill holds the loop until the exit and a sample")
  func victimsAndHold() {
    let apps = Self.apps([("fg", .foregroundActive), ("s", .suspended), ("bg", .background)])
    var loop = JetsamLoop()
    #expect(!loop.mayChoose && loop.isSettled(among: apps), "normal: nobody")
    loop.sampled(available: Available.urgent, thresholds: Self.thresholds)
    #expect(loop.mayChoose && loop.victim(among: apps)?.name == "s")
    #expect(!loop.isSettled(among: apps))
    loop.killing("s", pid: 2, until: t(10))
    #expect(!loop.mayChoose && loop.nextDeadline == t(10))
    loop.exited("s", pid: 9)
    #expect(!loop.mayChoose, "another process's exit does not release it")
    loop.exited("s", pid: 2)
    #expect(!loop.mayChoose, "a fresh sample is owed")
    loop.sampled(available: Available.critical, thresholds: Self.thresholds)
    #expect(loop.mayChoose)
    let rest = Self.apps([("fg", .foregroundActive)])
    #expect(loop.victim(among: rest)?.name == "fg", "at critical the foreground too")
  }

  @Test("a victim stuck dying stops holding the loop at its deadline")
  func stuckVictim() {
    var loop = JetsamLoop()
    loop.force(.urgent)
    loop.killing("s", pid: 2, until: t(10))
    loop.tick(at: t(9))
    #expect(loop.pendingKill != nil)
    loop.tick(at: t(10))
    #expect(loop.pendingKill == nil && loop.mayChoose)
  }

  @Test("a decision carries the pressure as decided; the snapshot lists the running apps in kill order")
  func decisionAndSnapshot() {
    var loop = JetsamLoop()
    loop.sampled(available: Available.urgent, thresholds: Self.thresholds)
    let decision = loop.pressure.decision(.jetsam)
    #expect(decision.level == .urgent && decision.availableBytes == Available.urgent && decision.snapshot == nil)
    let apps = Self.apps([("fg", .foregroundActive), ("s", .suspended), ("bg", .background)])
    #expect(loop.snapshot(of: apps, at: t(5)).map(\.name) == ["s", "bg", "fg"])
  }
}
