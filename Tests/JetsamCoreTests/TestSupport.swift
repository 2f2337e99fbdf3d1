import JetsamCore
import JetsamValues
import Testing

// Shared fixtures: a manual clock, small byte thresholds, and shortcuts for driving the policy.

/// Thresholds in plain bytes: warning at ≤ 400 (clears at ≥ 500), urgent at ≤ 200 (≥ 300), critical at ≤ 100
/// (≥ 150).
let testThresholds = PressureThresholds(
  warning: .init(enter: 400, clear: 500), urgent: .init(enter: 200, clear: 300),
  critical: .init(enter: 100, clear: 150))

/// Sample values that land squarely in each level from any starting level.
enum Available {
  static let plenty: Int64 = 1000
  static let warning: Int64 = 350
  static let urgent: Int64 = 150
  static let critical: Int64 = 50
}

/// The manual clock: `t(5)` is five seconds after the origin.
func t(_ seconds: Int64) -> Instant { .seconds(seconds) }

/// `t(seconds)` plus some milliseconds.
func t(_ seconds: Int64, ms: Int64) -> Instant { .milliseconds(seconds * 1000 + ms) }

let sigkill = ProcessEnd.signaled(signal: Signal.kill.rawValue, dumpedCore: false)
let sigterm = ProcessEnd.signaled(signal: Signal.terminate.rawValue, dumpedCore: false)
let sigsegv = ProcessEnd.signaled(signal: Signal.segmentationFault.rawValue, dumpedCore: true)

func testConfig(
  slots: Int = 1, grace: Duration? = nil, killTimeout: Duration = .seconds(2), terminateGrace: Duration = .seconds(5)
) -> PolicyConfig {
  var config = PolicyConfig(
    thresholds: testThresholds, foregroundSlots: slots, backgroundGrace: grace, killTimeout: killTimeout,
    terminateGrace: terminateGrace)
  // The CPU monitor's samples would add deadlines to every test of something else; CPUMonitorTests turn it on.
  config.cpu = CPUMonitorConfig(background: CPUStateLimits())
  // Asking whether a debugger is attached would add a round trip to every watchdog test of something else;
  // WatchdogDebuggerTests hold the watchdog as iOS does.
  config.watchdogUnderDebugger = .kill
  // Suspended apps' memory rounds would add a deadline to every test of something else with a suspended app;
  // SuspendedMemoryTests turn them on.
  config.suspendedMemoryInterval = nil
  return config
}

extension JetsamPolicy {
  init(
    slots: Int = 1, grace: Duration? = nil, killTimeout: Duration = .seconds(2), terminateGrace: Duration = .seconds(5)
  ) {
    self.init(
      config: testConfig(slots: slots, grace: grace, killTimeout: killTimeout, terminateGrace: terminateGrace))
  }

  /// Handles an event that must not be refused (results, observations, ticks), recording an issue if it is.
  @discardableResult
  mutating func observe(_ event: PolicyEvent, sourceLocation: SourceLocation = #_sourceLocation) -> [PolicyAction] {
    do {
      return try handle(event)
    } catch {
      Issue.record("\(event) was refused: \(error)", sourceLocation: sourceLocation)
      return []
    }
  }

  /// Configures, launches and spawns an app, leaving it in the foreground or the background.
  mutating func start(
    _ name: String, pid: Int32, at instant: Instant, foreground: Bool = false, floor: Band? = nil
  ) throws(PolicyError) {
    _ = try handle(.configure(app: name, bandFloor: floor, launchCount: 0))
    _ = try handle(.launch(app: name, foreground: foreground, at: instant))
    _ = try handle(.spawned(app: name, pid: pid, at: instant))
  }

  /// Starts an app in the background and suspends it, its last process stopping at `stoppedAt`.
  mutating func startSuspended(
    _ name: String, pid: Int32, at instant: Instant, stoppedAt: Instant? = nil, floor: Band? = nil
  ) throws(PolicyError) {
    try start(name, pid: pid, at: instant, floor: floor)
    _ = try handle(.suspend(app: name, at: instant))
    _ = try handle(.suspendCompleted(app: name, at: stoppedAt ?? instant))
  }

  /// The app reports a digest of its state.
  @discardableResult
  mutating func reportDigest(
    _ name: String, _ phase: DigestPhase, _ value: String, validFor: Duration? = nil, at instant: Instant
  ) -> [PolicyAction] {
    guard let pid = app(named: name)?.pid else {
      Issue.record("\(name) has no process")
      return []
    }
    let message = AppMessage.stateDigest(phase: phase, value: value, validFor: validFor, requestID: nil)
    return observe(.appMessage(app: name, pid: pid, message: message, at: instant))
  }

  /// A memory sample.
  @discardableResult
  mutating func sample(_ available: Int64, at instant: Instant) -> [PolicyAction] {
    observe(.memorySampled(available: available, at: instant))
  }

  /// The current pid of `name`'s process exits with `end`.
  @discardableResult
  mutating func exits(_ name: String, _ end: ProcessEnd, oomKilled: Bool = false, at instant: Instant) -> [PolicyAction]
  {
    guard let pid = app(named: name)?.pid else {
      Issue.record("\(name) has no process")
      return []
    }
    return observe(.exited(app: name, pid: pid, end: end, oomKilled: oomKilled, at: instant))
  }
}

extension [PolicyAction] {
  /// The apps of the `kill` actions, in order.
  var killed: [String] {
    compactMap { if case .kill(let app, _, _, _) = $0 { app } else { nil } }
  }

  /// The jetsam (pressure) kills: those carrying a snapshot.
  var jetsamKills: [(app: String, snapshot: [SnapshotEntry])] {
    compactMap {
      if case .kill(let app, _, .memoryPressure, let decision) = $0, let snapshot = decision.snapshot {
        (app, snapshot)
      } else {
        nil
      }
    }
  }

  /// The state changes, as (app, from, to).
  var moves: [Move] {
    compactMap { if case .stateChanged(let app, let from, let to, _) = $0 { Move(app, from, to) } else { nil } }
  }

  /// The lifecycle events delivered, in order.
  var events: [AppEvent] {
    compactMap { if case .deliver(_, _, let event) = $0 { event } else { nil } }
  }

  /// The exit records.
  var records: [ExitRecord] {
    compactMap { if case .recordExit(let record) = $0 { record } else { nil } }
  }
}

/// One state change, comparable in expectations.
struct Move: Equatable, CustomStringConvertible {
  var app: String
  var from: LifecycleState
  var to: LifecycleState
  init(_ app: String, _ from: LifecycleState, _ to: LifecycleState) {
    self.app = app
    self.from = from
    self.to = to
  }
  var description: String { "\(app): \(from) → \(to)" }
}

extension [PolicyAction] {
  /// The actions without the lifecycle events delivered to apps (for tests about states and kills).
  var withoutEvents: [PolicyAction] {
    filter { if case .deliver = $0 { false } else { true } }
  }
}
