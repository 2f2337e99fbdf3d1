import JetsamCore
import JetsamValues
import Testing

/// What the app table keeps as apps change against the passes over every app it replaces: after every event of a
/// random day of launches, moves, suspensions, background tasks, acknowledgements, kills, exits, ticks and
/// charging, the next deadline and the counts by state are the same.
@Suite struct AppTableIndexTests {
  static let names = (0..<8).map { "app\($0)" }

  /// One random event at `at`, for a random app (its current pid where the event needs one).
  static func randomEvent(_ policy: JetsamPolicy, at: Instant, _ random: inout SplitMix64) -> PolicyEvent {
    let name = names.randomElement(using: &random)!
    let pid = policy.app(named: name)?.pid ?? 1
    let message: AppMessage =
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        .beginBackgroundTask(requestID: 1, name: "upload", kind: Bool.random(using: &random) ? .processing : .finishing)
      case 1: .endBackgroundTask(task: Int.random(in: 1...3, using: &random), requestID: nil)
      case 2: .acknowledge(event: Int.random(in: 1...6, using: &random))
      default: .hello
      }
    switch Int.random(in: 0..<15, using: &random) {
    case 0: return .launch(app: name, foreground: Bool.random(using: &random), at: at)
    case 1: return .spawned(app: name, pid: Int32.random(in: 10...10_000, using: &random), at: at)
    case 2: return .activate(app: name, at: at)
    case 3: return .moveToBackground(app: name, at: at)
    case 4: return .suspend(app: name, at: at)
    case 5: return .suspendCompleted(app: name, at: at)
    case 6: return .resume(app: name, at: at)
    case 7: return .terminate(app: name, at: at)
    case 8: return .kill(app: name, reason: .abnormal, at: at)
    case 9: return .exited(app: name, pid: pid, end: sigkill, oomKilled: false, at: at)
    case 10: return .setCharging(Bool.random(using: &random), at: at)
    case 11, 12: return .appMessage(app: name, pid: pid, message: message, at: at)
    default: return .tick(at: policy.nextDeadline.map { max($0, at) } ?? at)
    }
  }

  @Test(
    "after every event, the next deadline and the counts by state are what a pass over every app finds",
    arguments: 1...12)
  func indexesAgreeWithAScan(seed: UInt64) throws {
    var random = SplitMix64(state: seed)
    // No CPU, disk or memory rounds: their deadlines would hide the apps' ones.
    var policy = JetsamPolicy(config: testConfig(slots: 2, grace: .seconds(3)))
    for name in Self.names {
      let acknowledgements = [AcknowledgementMode.auto, .always, .never].randomElement(using: &random)!
      _ = try policy.handle(.configure(app: name, bandFloor: nil, launchCount: 0, acknowledgements: acknowledgements))
    }
    var now = t(0)
    var deadlinesSeen = 0
    for _ in 0..<1_500 {
      now = now.advanced(by: .milliseconds(Int64.random(in: 0...900, using: &random)))
      let event = Self.randomEvent(policy, at: now, &random)
      if case .tick(let at) = event { now = at }
      _ = try? policy.handle(event)
      #expect(policy.nextDeadline == policy.nextDeadlineByScan, "after \(event)")
      #expect(
        policy.appCountsByState == Dictionary(grouping: policy.apps, by: \.state).mapValues(\.count), "after \(event)")
      if policy.nextDeadline != nil { deadlinesSeen += 1 }
    }
    // The day must have had deadlines to compare, or the test proves nothing.
    #expect(deadlinesSeen > 300)
  }
}
