import JetsamCore
import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// The one way into the policy, driven through the fake loop: requests all or nothing, observations queued while
/// actions are carried out, the deadline re-armed after each run, waiting requests answered once settled.
@Suite("Policy loop")
struct PolicyLoopTests {
  /// A loop whose owners record what it asked of them.
  final class Harness {
    let scheduling = FakeLoop()
    let loop: PolicyLoop
    var performed: [PolicyAction] = []
    var handled: [PolicyEvent] = []
    var runs: [Bool] = []
    var batches = 0
    var stopsPending: Set<String> = []
    /// Run on each action as it is carried out (a result the supervisor would report at once).
    var onPerform: (PolicyAction) -> Void = { _ in }

    init(grace: Duration? = nil) throws {
      var config = PolicyConfig(
        thresholds: PressureThresholds(
          warning: .init(enter: 400, clear: 500), urgent: .init(enter: 200, clear: 300),
          critical: .init(enter: 100, clear: 150)),
        backgroundGrace: grace)
      // No CPU samples: their deadlines would come before the ones these tests look at.
      config.cpu = CPUMonitorConfig(background: CPUStateLimits())
      loop = try PolicyLoop(policy: JetsamPolicy(config: config), scheduling: scheduling, log: Logger())
      loop.owners = PolicyLoop.Owners(
        perform: { [unowned self] action in
          self.performed.append(action)
          self.onPerform(action)
        },
        handled: { [unowned self] event in self.handled.append(event) },
        batchDone: { [unowned self] in self.batches += 1 },
        runDone: { [unowned self] changed in self.runs.append(changed) },
        isStopPending: { [unowned self] name in self.stopsPending.contains(name) })
    }

    var now: Instant { scheduling.now() }

    /// Configures and launches `name` into the background, its process spawned as `pid`.
    func start(_ name: String, pid: Int32) throws {
      try loop.submit([
        .configure(app: name, settings: AppSettings(launch: LaunchSpec(command: [name])), launchCount: 0),
        .launch(app: name, foreground: false, at: now),
      ])
      loop.observe(.spawned(app: name, pid: pid, at: now))
    }
  }

  @Test("a batch of requests is all or nothing: one refused leaves the policy as it was and carries out nothing")
  func submitAllOrNothing() throws {
    let harness = try Harness()
    #expect(throws: PolicyError.self) {
      try harness.loop.submit([
        .configure(app: "a", settings: AppSettings(launch: LaunchSpec(command: ["a"])), launchCount: 0),
        .launch(app: "a", foreground: false, at: harness.now), .suspend(app: "nobody", at: harness.now),
      ])
    }
    #expect(harness.loop.policy.app(named: "a") == nil)
    #expect(harness.performed.isEmpty && harness.handled.isEmpty && harness.runs.isEmpty)
  }

  @Test("events reported while actions are carried out wait their turn, after the batch, in order")
  func reentrantEventsQueue() throws {
    let harness = try Harness()
    // The supervisor reports the spawn at once, from inside carrying out the spawn action.
    harness.onPerform = { action in
      if case .spawn(let app, _, _, _) = action { harness.loop.observe(.spawned(app: app, pid: 42, at: harness.now)) }
    }
    try harness.loop.submit([
      .configure(app: "a", settings: AppSettings(launch: LaunchSpec(command: ["a"])), launchCount: 0),
      .launch(app: "a", foreground: false, at: harness.now),
    ])
    let spawnIndex = try #require(harness.performed.firstIndex { if case .spawn = $0 { true } else { false } })
    let spawnedIndex = try #require(harness.handled.firstIndex { if case .spawned = $0 { true } else { false } })
    #expect(spawnedIndex == harness.handled.count - 1, "the result was handled after the request's events")
    #expect(harness.performed.count > spawnIndex + 1, "the spawned event's actions followed the spawn's batch")
    #expect(harness.loop.policy.app(named: "a")?.pid == 42)
    #expect(harness.runs == [true], "one run for the request and the result it caused")
    #expect(harness.batches == 1, "what the batch is done with runs once, after the result too")
  }

  @Test("the deadline timer is armed at the policy's next deadline, and its tick carries out what falls due")
  func deadlineTicks() throws {
    let harness = try Harness(grace: .seconds(5))
    try harness.start("a", pid: 10)
    let due = try #require(harness.loop.policy.nextDeadline)
    #expect(due == harness.now.advanced(by: .seconds(5)))
    harness.performed = []
    harness.scheduling.advance(by: .seconds(4))
    #expect(harness.performed.isEmpty, "nothing is due before the grace runs out")
    harness.scheduling.advance(by: .seconds(1))
    #expect(harness.performed.contains(.suspend(app: "a", pid: 10)), "\(harness.performed)")
    #expect(harness.handled.last == .tick(at: due))
  }

  @Test("a run of memory samples that change nothing does not call for a new status")
  func quietSamples() throws {
    let harness = try Harness()
    harness.loop.observe(.memorySampled(available: 10_000, at: harness.now))
    harness.loop.observe(.memorySampled(available: 10_000, at: harness.now))
    #expect(harness.runs == [false, false])
    try harness.start("a", pid: 10)
    #expect(harness.runs.suffix(2) == [true, true])
  }

  @Test("a request waiting for suspensions is answered once they settle, never before its caller returns")
  func suspensionWaiters() throws {
    let harness = try Harness()
    try harness.start("a", pid: 10)
    try harness.loop.submit([.suspend(app: "a", at: harness.now)])
    harness.stopsPending = ["a"]
    var answered = 0
    harness.loop.afterSuspensions(of: ["a"]) { answered += 1 }
    #expect(answered == 0)
    // A check that does not see the app stopped changes nothing.
    harness.loop.observe(.memorySampled(available: 10_000, at: harness.now))
    #expect(answered == 0)
    // The stop watcher sees it stopped: the waiter is answered at the end of that run.
    harness.stopsPending = []
    harness.loop.observe(.suspendCompleted(app: "a", at: harness.now))
    #expect(answered == 1)
    harness.loop.observe(.memorySampled(available: 10_000, at: harness.now))
    #expect(answered == 1, "answered once")
  }
}
