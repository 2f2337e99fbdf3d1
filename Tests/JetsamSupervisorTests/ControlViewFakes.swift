import Foundation
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

@testable import JetsamShell

/// What the app family (launch, the lifecycle verbs) sees of the daemon: a real policy fed what it submits, the
/// shell's answers scripted.
final class FakeAppView: AppControlView {
  var config = DaemonConfig()
  var appsDirectory = "/nonexistent/apps"
  let log = Logger(threshold: .error)
  var shuttingDown = false
  var state = TestPolicy()
  var policy: JetsamPolicy { state.policy }
  var cgroups: [String: FakeCgroup] = [:]
  var stopsPending: Set<String> = []
  var failures: [String: (launch: Int, message: String)] = [:]
  var inFlight: Set<String> = []
  /// Set: the policy refuses the next batch with it.
  var refusal: PolicyError?
  private(set) var submitted: [[PolicyEvent]] = []
  private var settled: [String: [() -> Void]] = [:]
  /// Whether the state file's writer is slow: whoever waits for it waits until ``finishSaves()``.
  var holdingSaves = false
  private var waitingForSave: [() -> Void] = []

  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? { cgroups[name] }
  func isStopPending(_ name: String) -> Bool { stopsPending.contains(name) }
  func spawnFailure(of name: String) -> (launch: Int, message: String)? { failures[name] }

  func submit(_ events: [PolicyEvent]) throws(PolicyError) {
    if let refusal { throw refusal }
    try state.submit(events)
    submitted.append(events)
  }
  func afterSuspensions(of apps: [String], then: @escaping () -> Void) { then() }
  func whenSpawnSettled(_ name: String, then: @escaping () -> Void) {
    guard inFlight.contains(name) else { return then() }
    settled[name, default: []].append(then)
  }
  func whenStateSaved(_ then: @escaping () -> Void) {
    guard holdingSaves else { return then() }
    waitingForSave.append(then)
  }

  /// The state file's writer finishes: whoever waited for it hears of it.
  func finishSaves() {
    let waiting = waitingForSave
    waitingForSave = []
    for then in waiting { then() }
  }

  /// The spawner service answers: `name` runs as `pid`, and whoever waited for the answer hears of it.
  func settleSpawn(of name: String, pid: Int32) throws {
    inFlight.remove(name)
    try state.submit([.spawned(app: name, pid: pid, at: TestPolicy.at)])
    for then in settled.removeValue(forKey: name) ?? [] { then() }
  }
}

/// What the status family (status, ps, watch) sees of the daemon: figures to report, scripted.
final class FakeStatusView: StatusControlView {
  var config = DaemonConfig()
  var state = TestPolicy()
  var policy: JetsamPolicy { state.policy }
  var startedAt = MonotonicClock.now()
  var cgroupMode = "v2"
  var deviceCgroup = "/jetsam.slice/device"
  let recordLog: ExitRecordLog
  var recordsWritten = 0
  var cgroups: [String: FakeCgroup] = [:]
  var stopsPending: Set<String> = []
  var ramBytes: Int64 = 4 << 30
  var availableBytes: Int64 = 3 << 30
  var thresholds = TestPolicy().policy.config.thresholds
  var balloon: (any MemoryBalloon)? { nil }
  private(set) var continuedNoticed = 0
  private(set) var watchers: [Duration] = []

  init(recordLog: ExitRecordLog) { self.recordLog = recordLog }

  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? { cgroups[name] }
  func isStopPending(_ name: String) -> Bool { stopsPending.contains(name) }
  func noticeContinued() { continuedNoticed += 1 }
  func watch(_ connection: ControlConnection, interval: Duration) { watchers.append(interval) }
}

/// What the pressure family (pressure, device) sees of the daemon: a real policy fed what it submits, the pressure
/// figures scripted, waiters answered at once.
final class FakePressureView: PressureControlView {
  var config = DaemonConfig()
  let log = Logger(threshold: .error)
  var state = TestPolicy()
  var policy: JetsamPolicy { state.policy }
  var ramBytes: Int64 = 4 << 30
  var availableBytes: Int64 = 3 << 30
  var thresholds = TestPolicy().policy.config.thresholds
  var balloon: (any MemoryBalloon)? { nil }
  var isJetsamSettled = true
  private(set) var submitted: [[PolicyEvent]] = []
  private(set) var devicePublished: [Bool] = []

  func submit(_ events: [PolicyEvent]) throws(PolicyError) {
    try state.submit(events)
    submitted.append(events)
  }
  func inflateBalloon(bytes: Int64) throws {}
  func releaseBalloon() {}
  func addWaiter(
    timeout: Duration, what: String, check: @escaping ConditionWaiters.Check,
    then: @escaping (Result<Void, ControlError>) -> Void
  ) -> Result<Void, ControlError>? { check() }
  func publishDevice(charging: Bool) { devicePublished.append(charging) }
}

/// What the record family (exits, metrics, diagnostics) sees of the daemon: a real record log, the records on their
/// way and the exposition scripted.
final class FakeRecordView: RecordControlView {
  var state = TestPolicy()
  var policy: JetsamPolicy { state.policy }
  let recordLog: ExitRecordLog
  var unwrittenRecords: [ExitRecord] = []
  var cgroups: [String: FakeCgroup] = [:]
  var exposition = "jetsam_pressure_level 0\n"
  var diagnostics: DiagnosticStore? { nil }

  init(recordLog: ExitRecordLog) { self.recordLog = recordLog }

  func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? { cgroups[name] }
  func expositionText() -> String { exposition }
}
