import JetsamCore
import JetsamValues

@testable import JetsamShell

// What the fakes of the daemon's narrow views (the control handler's, the exposition's, the textfile's) share:
// blocking work run in place, and a real policy brought to the state a test needs.

/// Runs the work in place and hands its result over at once, so that what it leads to can be checked right after;
/// while `holding`, only once the test calls ``finish()`` (a request answered after it returned).
final class FakeBackground: BackgroundRunning {
  var holding = false
  private(set) var runs = 0
  private var held: [() -> Void] = []

  func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result, then: @escaping (Result) -> Void) {
    runs += 1
    guard holding else { return then(work()) }
    held.append { then(work()) }
  }

  /// Runs the work held, in order, and hands each result over.
  func finish() {
    let work = held
    held = []
    for item in work { item() }
  }
}

/// A pure policy, fed events as the daemon's loop would: the views hand it out as they stand.
struct TestPolicy {
  static let at = Instant.seconds(100)
  private(set) var policy: JetsamPolicy

  init() {
    var config = PolicyConfig(
      thresholds: PressureThresholds(
        warning: .init(enter: 400, clear: 500), urgent: .init(enter: 200, clear: 300),
        critical: .init(enter: 100, clear: 150)))
    // No CPU samples: nothing in these tests waits for one.
    config.cpu = CPUMonitorConfig(background: CPUStateLimits())
    policy = JetsamPolicy(config: config)
  }

  /// Feeds `events`, all or nothing (as ``PolicyLoop/submit(_:)``); returns the actions decided.
  @discardableResult
  mutating func submit(_ events: [PolicyEvent]) throws(PolicyError) -> [PolicyAction] {
    var next = policy
    var actions: [PolicyAction] = []
    for event in events { actions += try next.handle(event) }
    policy = next
    return actions
  }

  /// Configures and launches `name`, its process spawned as `pid` (in the foreground, or the background).
  mutating func run(_ name: String, pid: Int32, foreground: Bool = true) throws {
    try submit([
      .configure(app: name, settings: AppSettings(launch: LaunchSpec(command: [name])), launchCount: 0),
      .launch(app: name, foreground: foreground, at: Self.at), .spawned(app: name, pid: pid, at: Self.at),
    ])
  }
}

/// Answers a launch's command check when the test says (``answer(_:)``), as the real one answers later, off the
/// loop; each check's programs are kept.
final class FakeCommandCheck: LaunchCommandChecking {
  private(set) var checked: [[String]] = []
  private var waiting: [(String?) -> Void] = []

  func problem(of check: LaunchCommandCheck, then: @escaping (String?) -> Void) {
    checked.append(check.programs.map { "\($0.label) \($0.program)" })
    waiting.append(then)
  }

  /// Answers every check waiting with `problem`.
  func answer(_ problem: String?) {
    let answers = waiting
    waiting = []
    for then in answers { then(problem) }
  }
}
