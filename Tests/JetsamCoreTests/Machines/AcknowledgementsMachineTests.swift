import JetsamValues
import Testing

@testable import JetsamCore

/// The acknowledgements machine driven alone, on one app's entry: deliveries, answers, the watchdog, terminates.
@Suite("Acknowledgements, alone")
struct AcknowledgementsMachineTests {
  static let pressure = DevicePressure(level: .warning, availableBytes: 123)

  static func machine(_ change: (inout PolicyConfig) -> Void = { _ in }) -> Acknowledgements {
    var config = PolicyConfig(thresholds: testThresholds)
    change(&config)
    return Acknowledgements(rules: AcknowledgementRules(config))
  }

  /// A foreground app whose process speaks the protocol.
  static func speakingApp() -> TrackedApp {
    var app = TrackedApp(name: "a", settings: AppSettings(launch: LaunchSpec(command: ["a"])), launch: 1, at: t(0))
    app.state = .foregroundActive
    app.process = RunningProcess(pid: 10, spawnedAt: t(0), previousDigest: nil)
    app.process?.channel.speaksProtocol = true
    return app
  }

  @Test("a watched event is numbered and watched; its answer ends the watch, and an id never sent is an error")
  func deliveryAndAnswer() {
    let machine = Self.machine()
    var app = Self.speakingApp()
    let delivered = machine.deliver(AppEvent(id: 0, kind: .willResignActive), to: &app, at: t(1))
    guard case .deliver(_, 10, let event) = delivered.first else {
      Issue.record("no delivery: \(delivered)")
      return
    }
    #expect(event.id == 1 && app.process?.channel.pendingAcks[1]?.since == t(1))
    let answered = machine.acknowledged(1, pid: 10, of: &app, at: t(2))
    #expect(answered == [.acknowledged(app: "a", pid: 10, event: .willResignActive)])
    #expect(app.process?.channel.pendingAcks.isEmpty == true)
    let unknown = machine.acknowledged(7, pid: 10, of: &app, at: t(3))
    guard case .appError(_, _, _, .unknownEvent, _) = unknown.first else {
      Issue.record("no error for an event never sent: \(unknown)")
      return
    }
    #expect(machine.acknowledged(1, pid: 99, of: &app, at: t(3)).isEmpty, "another process's answer says nothing")
  }

  @Test("past its allowance the watchdog takes the hang's diagnostic and kills with the pressure it is handed")
  func watchdogKill() {
    let machine = Self.machine { $0.watchdogUnderDebugger = .kill }
    var app = Self.speakingApp()
    _ = machine.deliver(AppEvent(id: 0, kind: .willResignActive), to: &app, at: t(0))
    let allowance = machine.rules.timings.deadline(for: .willResignActive)
    let early = machine.tick(of: &app, charging: false, pressure: Self.pressure, at: t(0).advanced(by: allowance / 2))
    #expect(early.isEmpty)
    let late = machine.tick(of: &app, charging: false, pressure: Self.pressure, at: t(0).advanced(by: allowance))
    guard late.count == 2, case .diagnose(_, 10, .hang(.willResignActive, _)) = late[0],
      case .kill(_, 10, .appWatchdog, let decision) = late[1]
    else {
      Issue.record("expected the hang's diagnostic, then the kill: \(late)")
      return
    }
    #expect(decision.level == .warning && decision.availableBytes == 123)
    #expect(app.requestedKill != nil && app.process?.metrics.hangTimes.total == 1)
  }

  @Test("under a debugger the watchdog asks for the tracer first and holds while one is attached")
  func debuggerHolds() {
    let machine = Self.machine()
    var app = Self.speakingApp()
    _ = machine.deliver(AppEvent(id: 0, kind: .willResignActive), to: &app, at: t(0))
    let due = t(0).advanced(by: machine.rules.timings.deadline(for: .willResignActive))
    #expect(
      machine.tick(of: &app, charging: false, pressure: Self.pressure, at: due) == [.checkTracer(app: "a", pid: 10)])
    let held = machine.tracerChecked(pid: 10, tracer: 42, of: &app, pressure: Self.pressure, at: due)
    #expect(held == [.watchdogHeld(app: "a", pid: 10, event: .willResignActive, tracer: 42)])
    #expect(app.requestedKill == nil)
  }

  @Test("a terminate waits for willTerminate's answer, then sends the SIGTERM with its grace")
  func terminate() throws {
    let machine = Self.machine()
    var app = Self.speakingApp()
    let first = try machine.terminate(&app, at: t(1))
    guard case .deliver(_, _, let event) = first.first, event.kind == .willTerminate else {
      Issue.record("willTerminate first: \(first)")
      return
    }
    let answered = machine.acknowledged(event.id, pid: 10, of: &app, at: t(2))
    #expect(answered.last == .terminate(app: "a", pid: 10))
    #expect(app.process?.terminateDeadline == t(2).advanced(by: machine.rules.terminateGrace))
  }
}
