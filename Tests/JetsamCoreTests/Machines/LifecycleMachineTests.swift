import JetsamValues
import Testing

@testable import JetsamCore

/// The lifecycle driven alone: its moves, the foreground slots, refusals that change nothing.
@Suite("Lifecycle, alone")
struct LifecycleMachineTests {
  static func lifecycle(slots: Int = 1, grace: Duration? = nil) -> Lifecycle {
    var lifecycle = Lifecycle(
      rules: LifecycleRules(PolicyConfig(thresholds: testThresholds, foregroundSlots: slots, backgroundGrace: grace)))
    for name in ["a", "b"] {
      _ = lifecycle.configure(name, AppSettings(launch: LaunchSpec(command: [name])), launchCount: 0, lastLaunch: nil)
    }
    return lifecycle
  }

  static func moves(_ actions: [PolicyAction]) -> [String] {
    actions.compactMap { action in
      guard case .stateChanged(let app, _, let to, _) = action else { return nil }
      return "\(app) \(to)"
    }
  }

  @Test("a second app in the only foreground slot sends the first to the background, through inactive")
  func foregroundSlots() throws {
    var lifecycle = Self.lifecycle()
    _ = try lifecycle.launch("a", foreground: true, previous: nil, at: t(0))
    #expect(Self.moves(lifecycle.spawned("a", pid: 10, previous: nil, at: t(1))) == ["a foregroundActive"])
    _ = try lifecycle.launch("b", foreground: true, previous: nil, at: t(2))
    let spawned = lifecycle.spawned("b", pid: 11, previous: nil, at: t(3))
    #expect(Self.moves(spawned) == ["a foregroundInactive", "a background", "b foregroundActive"])
    #expect(lifecycle.apps.state(of: "a") == .background && lifecycle.apps.state(of: "b") == .foregroundActive)
  }

  @Test("a background stint gets its grace deadline, and leaving the background cancels it")
  func grace() throws {
    var lifecycle = Self.lifecycle(grace: .seconds(5))
    _ = try lifecycle.launch("a", foreground: false, previous: nil, at: t(0))
    _ = lifecycle.spawned("a", pid: 10, previous: nil, at: t(1))
    #expect(lifecycle.apps["a"]?.process?.graceDeadline == t(6))
    _ = try lifecycle.activate("a", previous: nil, at: t(2))
    #expect(lifecycle.apps["a"]?.process?.graceDeadline == nil)
    #expect(lifecycle.apps.state(of: "a") == .foregroundActive)
  }

  @Test("a refused request throws and leaves every app as it was")
  func refusals() throws {
    var lifecycle = Self.lifecycle()
    #expect(throws: PolicyError.illegalTransition(app: "a", from: .notRunning, request: "suspend")) {
      try lifecycle.checkSuspendable("a")
    }
    #expect(throws: PolicyError.unknownApp("z")) { try lifecycle.resume("z", at: t(0)) }
    _ = try lifecycle.launch("a", foreground: false, previous: nil, at: t(0))
    #expect(throws: PolicyError.illegalTransition(app: "a", from: .launching, request: "launch")) {
      try lifecycle.launch("a", foreground: false, previous: nil, at: t(1))
    }
    #expect(lifecycle.apps["a"]?.launch == 1 && lifecycle.apps.state(of: "a") == .launching)
    #expect(lifecycle.apps.state(of: "b") == .notRunning)
  }
}
