import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol

/// One run's moving parts: the control connection, the timeline, and which exits the steps asked for.
struct LabSession {
  let client: ControlClient
  let timeline: Timeline
  let origin: Int64
  let commands: ([String]) -> [String]
  let apps: [String: LabApp]
  /// Where `exercise` steps' output goes.
  let exerciseLog: String
  /// Exits the scenario caused or expected (`app#launch`), and apps a step killed or ended since when.
  var expectedExits: Set<String> = []
  var endedByStep: [(app: String, since: Int64)] = []
  /// The daemon's clock minus the lab's (``HostClock``): every time here is on the daemon's clock, which a remote
  /// host's need not share.
  var clockOffset: Int64 = 0

  init(
    client: ControlClient, timeline: Timeline, origin: Int64, commands: @escaping ([String]) -> [String],
    apps: [String: LabApp], exerciseLog: String
  ) {
    self.exerciseLog = exerciseLog
    self.client = client
    self.timeline = timeline
    self.origin = origin
    self.commands = commands
    self.apps = apps
  }

  func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds - origin) / 1e9 }

  /// Now on the daemon's clock.
  func now() -> Int64 { MonotonicClock.now().nanoseconds + clockOffset }

  mutating func perform(_ step: Step) -> StepResult {
    let start = now()
    var result = StepResult(
      location: step.location, title: step.title, isExpectation: false, startSeconds: seconds(start),
      durationSeconds: 0, outcome: .passed)
    do {
      if case .expect(let expectation) = step.action {
        result.isExpectation = true
        let check = wait(for: expectation, within: step.within ?? LabRunner.defaultWithin)
        expectedExits.formUnion(check.matchedExits)
        if check.holds {
          result.evidence = check.detail
        } else {
          result.outcome = .failed
          result.message =
            "expected \(expectation.title) within \((step.within ?? LabRunner.defaultWithin).labText); "
            + check.detail
        }
      } else {
        try act(step)
      }
    } catch {
      result.outcome = .error
      result.message = "\(error)"
    }
    result.durationSeconds = Double(now() - start) / 1e9
    return result
  }

  /// Polls the timeline until the expectation holds or `within` runs out (`noExit` is judged at once).
  func wait(for expectation: Expectation, within: Duration) -> ExpectationCheck {
    func check() -> ExpectationCheck {
      ExpectationCheck.evaluate(expectation, changes: timeline.all, snapshot: timeline.snapshot)
    }
    if case .noExit = expectation { return check() }
    return waitFor(timeout: within, interval: .milliseconds(20)) { check().holds ? check() : nil } ?? check()
  }

  private mutating func act(_ step: Step) throws {
    let within = step.within?.seconds ?? 30
    switch step.action {
    case .launch(let names, let background):
      for name in names { try launch(name, background: background) }
    case .activate(let app): try open(app)
    case .background(let apps): try send(lifecycle(.background, apps))
    case .suspend(let apps): try send(lifecycle(.suspend, apps))
    case .resume(let apps): try send(lifecycle(.resume, apps))
    case .terminate(let apps):
      let since = now()
      try send(lifecycle(.terminate, apps))
      endedByStep += apps.map { ($0, since) }
    case .kill(let app, let reason):
      let since = now()
      var request = ControlRequest(verb: .kill, app: app)
      request.reason = reason
      try send(request)
      endedByStep.append((app, since))
    case .wait(let duration): pause(duration)
    case .pressure(let level):
      var request = ControlRequest(verb: .pressure)
      request.action = level == nil ? "clear" : "set"
      request.level = level
      if level != nil { request.wait = within }
      try send(request)
    case .allocate(let bytes): try allocate(bytes, within: within)
    case .release: try release()
    case .ramp(let to, let over, let steps):
      let start = now()
      for index in 1...steps {
        try allocate(to / Int64(steps) * Int64(index), within: within)
        // Evenly spread: each size is held until its share of the ramp's time has passed.
        let due = start + Int64(over.seconds * 1e9) * Int64(index) / Int64(steps)
        pause(.nanoseconds(due - now()))
      }
    case .spike(let size, let duration):
      try allocate(size, within: within)
      pause(duration)
      try release()
    case .charging(let on):
      var request = ControlRequest(verb: .device)
      request.charging = on
      try send(request)
    case .exercise(let app, let fails): try exercise(app, fails: fails, within: within)
    case .expect: break
    }
  }

  /// Runs the app's exercise on its launch now running, once that launch is up as far as anything tells: its
  /// `ready` command succeeded (jetsamd's acknowledgement of `didFinishLaunching` for its pid), so that the
  /// exercise meets the program, not a port nothing listens on yet.
  func exercise(_ name: String, fails: Bool, within: Double) throws {
    let app = apps[name]!
    let pid = try client.send(ControlRequest(verb: .ps)).apps?.first { $0.status.name == name }?.status.pid
    guard let pid else { throw LabError("exercise \(name): it is not running") }
    if app.commands.ready != nil {
      let timeline = timeline
      let ready = eventually(timeout: .seconds(within), interval: .milliseconds(20)) {
        timeline.all.contains {
          $0.kind == .acknowledgement && $0.app == name && $0.pid == pid
            && $0.name == AppEventKind.didFinishLaunching.rawValue
        }
      }
      guard ready else { throw LabError("exercise \(name): its ready command did not succeed within \(Int(within)) s") }
    }
    let problem = CheckExercise(line: app.exercise!, logPath: exerciseLog).run()
    if fails {
      guard problem != nil else {
        throw LabError("exercise \(name): \"\(app.exercise!)\" succeeded, and was to fail")
      }
    } else if let problem {
      throw LabError(problem)
    }
  }

  /// Cold-starts the app as the scenario describes it.
  func launch(_ name: String, background: Bool = false) throws {
    let app = apps[name]!
    var request = ControlRequest(verb: .launch, app: name)
    request.command = commands(app.command)
    if !app.environment.isEmpty { request.env = app.environment }
    request.memoryLimit = app.memoryLimit
    request.cpuLimit = app.cpuLimit
    request.band = app.band
    request.acknowledgements = app.acknowledgements
    app.commands.apply(to: &request)
    if background { request.background = true }
    try send(request)
  }

  /// Brings the app to the foreground as a user's tap does: resumed if suspended, cold-started if not running, and
  /// launched as the scenario describes it if jetsamd does not know it (never launched, or long forgotten).
  func open(_ app: String) throws {
    let answer = try client.send(ControlRequest(verb: .activate, app: app))
    if answer.ok { return }
    guard answer.error?.code == .unknownApp else {
      throw LabError("activate refused: \(answer.error?.message ?? "no reason given")")
    }
    try launch(app)
  }

  private func lifecycle(_ verb: ControlVerb, _ apps: [String]) -> ControlRequest {
    var request = ControlRequest(verb: verb)
    if apps.count == 1 { request.app = apps[0] } else { request.apps = apps }
    return request
  }

  func allocate(_ bytes: Int64, within: Double) throws {
    var request = ControlRequest(verb: .pressure)
    request.action = "allocate"
    request.size = bytes
    request.wait = within
    try send(request)
  }

  func release() throws {
    var request = ControlRequest(verb: .pressure)
    request.action = "release"
    try send(request)
  }

  @discardableResult
  func send(_ request: ControlRequest) throws -> ControlResponse {
    let answer = try client.send(request)
    guard answer.ok else {
      throw LabError("\(request.verb.rawValue) refused: \(answer.error?.message ?? "no reason given")")
    }
    return answer
  }

  /// Waits for the exits that killed or ended apps still owe (their records become durable shortly after), for a
  /// while: an exit that never comes is the checks' to report.
  func settle() {
    _ = eventually(timeout: .seconds(15), interval: .milliseconds(20)) {
      let changes = timeline.all
      return endedByStep.allSatisfy { ended in
        changes.contains { $0.kind == .exit && $0.app == ended.app && $0.monotonicNanoseconds >= ended.since }
      }
    }
  }

  /// The scenario-wide checks: no unexpected exit, the time limit.
  func checks(scenario: Scenario) -> [StepResult] {
    var results: [StepResult] = []
    let now = self.now()
    if scenario.noUnexpectedExits {
      let unexpected = timeline.all.filter { change in
        guard change.kind == .exit, let record = change.record else { return false }
        if expectedExits.contains(record.labKey) { return false }
        // An exit a kill or terminate step asked for, after that step.
        return !endedByStep.contains { $0.app == record.app && $0.since <= change.monotonicNanoseconds }
      }
      results.append(
        .check(
          "expect.noUnexpectedExits", "no unexpected exit", at: seconds(now),
          problem: unexpected.isEmpty
            ? nil
            : "unexpected exits: "
              + unexpected.map {
                "\($0.record!.labSummary) at +\(String(format: "%.3f", seconds($0.monotonicNanoseconds)))s"
              }.joined(separator: "; "),
          evidence: "\(timeline.exits.count) exit(s), each caused or expected by a step"))
    }
    if let limit = scenario.timeLimit {
      let took = seconds(now)
      results.append(
        .check(
          "expect.timeLimit", "the run takes at most \(limit.labText)", at: took,
          problem: took <= limit.seconds
            ? nil : String(format: "took %.1fs, over the limit of %@", took, limit.labText),
          evidence: String(format: "took %.1fs", took)))
    }
    if let ended = timeline.endReason {
      results.append(
        StepResult(
          location: "watch", title: "jetsamd watched to the end", isExpectation: true, startSeconds: seconds(now),
          durationSeconds: 0, outcome: .error, message: ended))
    }
    return results
  }
}
