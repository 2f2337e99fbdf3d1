import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamProtocol

/// Runs a scenario's steps against a jetsamd, one at a time, waiting for each one's effect, and checks its
/// expectations against what jetsamd pushed (``Timeline``).
public final class LabRunner {
  /// Where things are.
  public struct Options: Sendable {
    /// The control socket of a running jetsamd; nil: start a private one.
    public var socket: String?
    /// The jetsamd to start, and where jetsam's other programs are (a bare command word is looked up here first).
    public var binDirectory: String
    /// The run's directory: reports, and the private jetsamd's state and log.
    public var runDirectory: String
    /// Seconds between memory samples.
    public var memoryInterval: Double = 0.25

    public init(socket: String?, binDirectory: String, runDirectory: String) {
      self.socket = socket
      self.binDirectory = binDirectory
      self.runDirectory = runDirectory
    }
  }

  /// How long an expectation waits to hold, unless its step says `within`.
  static let defaultWithin = Duration.seconds(10)

  private let scenario: Scenario
  private let options: Options
  private let scenarioDirectory: String
  /// Told of each step as it ends (the CLI prints it).
  public var onStep: (StepResult) -> Void = { _ in }

  public init(scenario: Scenario, scenarioPath: String, options: Options) {
    self.scenario = scenario
    self.options = options
    scenarioDirectory = directoryPart(of: scenarioPath)
  }

  /// Runs the scenario; throws only when it cannot run at all (jetsamd would not start).
  public func run() throws -> LabRun {
    try FileManager.default.createDirectory(atPath: options.runDirectory, withIntermediateDirectories: true)
    let daemon: LabDaemon?
    if options.socket != nil {
      daemon = nil
    } else {
      guard geteuid() == 0 else {
        throw LabError("a private jetsamd needs root (it creates cgroups): run as root, or give --socket")
      }
      daemon = try LabDaemon(
        jetsamd: options.binDirectory + "/jetsamd", scenario: scenario, directory: options.runDirectory + "/jetsamd")
    }
    defer { daemon?.stop() }
    let socket = daemon?.socketPath ?? options.socket!
    let client = try ControlClient(path: socket)
    let timeline = try Timeline(socket: socket, interval: options.memoryInterval)
    defer { timeline.close() }
    let started = Date()
    let origin = timeline.snapshot.monotonicNanoseconds
    var session = Session(
      client: client, timeline: timeline, origin: origin, commands: commandResolver(),
      apps: scenario.apps)
    var results: [StepResult] = []
    for step in scenario.steps {
      let result = session.perform(step)
      results.append(result)
      onStep(result)
    }
    // The last exits a step caused are in flight: they count once durable (or not at all after a while).
    session.settle()
    for check in session.checks(scenario: scenario) {
      results.append(check)
      onStep(check)
    }
    let end = LabClock.nanoseconds()
    return LabRun(
      scenario: scenario.name, file: scenario.file,
      started: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
      originNanoseconds: origin, durationSeconds: Double(end - origin) / 1e9,
      ramBytes: timeline.snapshot.pressure.ramBytes, steps: results, exits: timeline.exits, timeline: timeline.all,
      initialApps: timeline.snapshot.apps)
  }

  /// argv with `{scenarioDir}` and `{runDir}` filled in; a first word without a slash is taken from beside
  /// jetsam-lab if it is there, else from PATH; a relative path is relative to the scenario's directory.
  private func commandResolver() -> ([String]) -> [String] {
    let (scenarioDirectory, binDirectory, runDirectory) = (
      scenarioDirectory, options.binDirectory, options.runDirectory
    )
    return { command in
      var words = command.map {
        $0.replacingOccurrences(of: "{scenarioDir}", with: scenarioDirectory)
          .replacingOccurrences(of: "{runDir}", with: runDirectory)
      }
      if let first = words.first {
        if !first.contains("/") {
          if FileManager.default.isExecutableFile(atPath: binDirectory + "/" + first) {
            words[0] = binDirectory + "/" + first
          } else if let found = LabRunner.searchPath(first) {
            words[0] = found
          }
        } else if !first.hasPrefix("/") {
          words[0] = scenarioDirectory + "/" + first
        }
      }
      return words
    }
  }

  static func searchPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}

/// CLOCK_MONOTONIC, the clock of jetsamd's `monotonicNanoseconds`.
enum LabClock {
  static func nanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// One run's moving parts: the control connection, the timeline, and which exits the steps asked for.
private struct Session {
  let client: ControlClient
  let timeline: Timeline
  let origin: Int64
  let commands: ([String]) -> [String]
  let apps: [String: LabApp]
  /// Exits the scenario caused or expected (`app#launch`), and apps a step killed or ended since when.
  var expectedExits: Set<String> = []
  var endedByStep: [(app: String, since: Int64)] = []

  init(
    client: ControlClient, timeline: Timeline, origin: Int64, commands: @escaping ([String]) -> [String],
    apps: [String: LabApp]
  ) {
    self.client = client
    self.timeline = timeline
    self.origin = origin
    self.commands = commands
    self.apps = apps
  }

  func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds - origin) / 1e9 }

  mutating func perform(_ step: Step) -> StepResult {
    let start = LabClock.nanoseconds()
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
    result.durationSeconds = Double(LabClock.nanoseconds() - start) / 1e9
    return result
  }

  /// Polls the timeline until the expectation holds or `within` runs out (`noExit` is judged at once).
  func wait(for expectation: Expectation, within: Duration) -> ExpectationCheck {
    let deadline = LabClock.nanoseconds() + Int64(within.labSeconds * 1e9)
    while true {
      let check = ExpectationCheck.evaluate(expectation, changes: timeline.all, snapshot: timeline.snapshot)
      if check.holds { return check }
      if case .noExit = expectation { return check }
      if LabClock.nanoseconds() >= deadline { return check }
      usleep(20_000)
    }
  }

  private mutating func act(_ step: Step) throws {
    let within = step.within?.labSeconds ?? 30
    switch step.action {
    case .launch(let name, let background):
      let app = apps[name]!
      var request = ControlRequest(verb: .launch, app: name)
      request.command = commands(app.command)
      if !app.environment.isEmpty { request.env = app.environment }
      request.memoryLimit = app.memoryLimit
      request.cpuLimit = app.cpuLimit
      request.band = app.band
      request.acknowledgements = app.acknowledgements
      if background { request.background = true }
      try send(request)
    case .activate(let app): try send(ControlRequest(verb: .activate, app: app))
    case .background(let apps): try send(lifecycle(.background, apps))
    case .suspend(let apps): try send(lifecycle(.suspend, apps))
    case .resume(let apps): try send(lifecycle(.resume, apps))
    case .terminate(let apps):
      let since = LabClock.nanoseconds()
      try send(lifecycle(.terminate, apps))
      endedByStep += apps.map { ($0, since) }
    case .kill(let app, let reason):
      let since = LabClock.nanoseconds()
      var request = ControlRequest(verb: .kill, app: app)
      request.reason = reason
      try send(request)
      endedByStep.append((app, since))
    case .wait(let duration): pause(duration.labSeconds)
    case .pressure(let level):
      var request = ControlRequest(verb: .pressure)
      request.action = level == nil ? "clear" : "set"
      request.level = level
      if level != nil { request.wait = within }
      try send(request)
    case .allocate(let bytes): try allocate(bytes, within: within)
    case .release: try release()
    case .ramp(let to, let over, let steps):
      let start = LabClock.nanoseconds()
      for index in 1...steps {
        try allocate(to / Int64(steps) * Int64(index), within: within)
        // Evenly spread: each size is held until its share of the ramp's time has passed.
        let due = start + Int64(over.labSeconds * 1e9) * Int64(index) / Int64(steps)
        pause(Double(due - LabClock.nanoseconds()) / 1e9)
      }
    case .spike(let size, let duration):
      try allocate(size, within: within)
      pause(duration.labSeconds)
      try release()
    case .charging(let on):
      var request = ControlRequest(verb: .device)
      request.charging = on
      try send(request)
    case .expect: break
    }
  }

  private func lifecycle(_ verb: ControlVerb, _ apps: [String]) -> ControlRequest {
    var request = ControlRequest(verb: verb)
    if apps.count == 1 { request.app = apps[0] } else { request.apps = apps }
    return request
  }

  private func allocate(_ bytes: Int64, within: Double) throws {
    var request = ControlRequest(verb: .pressure)
    request.action = "allocate"
    request.size = bytes
    request.wait = within
    try send(request)
  }

  private func release() throws {
    var request = ControlRequest(verb: .pressure)
    request.action = "release"
    try send(request)
  }

  @discardableResult
  private func send(_ request: ControlRequest) throws -> ControlResponse {
    let answer = try client.send(request)
    guard answer.ok else {
      throw LabError("\(request.verb.rawValue) refused: \(answer.error?.message ?? "no reason given")")
    }
    return answer
  }

  private func pause(_ seconds: Double) {
    guard seconds > 0 else { return }
    usleep(UInt32(min(seconds, 4000) * 1_000_000))
  }

  /// Waits briefly for the exits that killed or ended apps still owe (their records become durable shortly after).
  func settle() {
    let deadline = LabClock.nanoseconds() + 5_000_000_000
    while LabClock.nanoseconds() < deadline {
      let changes = timeline.all
      let owed = endedByStep.contains { ended in
        !changes.contains { $0.kind == .exit && $0.app == ended.app && $0.monotonicNanoseconds >= ended.since }
      }
      if !owed { return }
      usleep(20_000)
    }
  }

  /// The scenario-wide checks: no unexpected exit, the time limit.
  func checks(scenario: Scenario) -> [StepResult] {
    var results: [StepResult] = []
    let now = LabClock.nanoseconds()
    if scenario.noUnexpectedExits {
      let unexpected = timeline.all.filter { change in
        guard change.kind == .exit, let record = change.record else { return false }
        if expectedExits.contains(record.labKey) { return false }
        // An exit a kill or terminate step asked for, after that step.
        return !endedByStep.contains { $0.app == record.app && $0.since <= change.monotonicNanoseconds }
      }
      var result = StepResult(
        location: "expect.noUnexpectedExits", title: "no unexpected exit", isExpectation: true,
        startSeconds: seconds(now), durationSeconds: 0, outcome: unexpected.isEmpty ? .passed : .failed)
      if unexpected.isEmpty {
        result.evidence = "\(timeline.exits.count) exit(s), each caused or expected by a step"
      } else {
        result.message =
          "unexpected exits: "
          + unexpected.map {
            "\($0.record!.labSummary) at +\(String(format: "%.3f", seconds($0.monotonicNanoseconds)))s"
          }
          .joined(separator: "; ")
      }
      results.append(result)
    }
    if let limit = scenario.timeLimit {
      let took = seconds(now)
      var result = StepResult(
        location: "expect.timeLimit", title: "the run takes at most \(limit.labText)", isExpectation: true,
        startSeconds: took, durationSeconds: 0, outcome: took <= limit.labSeconds ? .passed : .failed)
      if result.outcome == .passed {
        result.evidence = String(format: "took %.1fs", took)
      } else {
        result.message = String(format: "took %.1fs, over the limit of %@", took, limit.labText)
      }
      results.append(result)
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
