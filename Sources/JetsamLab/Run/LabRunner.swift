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
    /// Seconds between memory samples; nil: a quarter second, longer for many apps (a second per 50 apps, at most
    /// 5 s), so that a long lab of hundreds of apps keeps a timeline of a size to draw.
    public var memoryInterval: Double?
    /// The chaos session's seed, over the scenario's (a replay).
    public var seed: UInt64?
    /// The chaos session's duration, over the scenario's (a shortened run).
    public var chaosDuration: Duration?
    /// Hosts reached over SSH (`--host`), over the scenario's of the same name.
    public var hosts: [LabHost] = []
    /// ssh's config file (`-F`) for reaching them (keys, known hosts); nil: ssh's own default.
    public var sshConfig: String?

    public init(socket: String?, binDirectory: String, runDirectory: String) {
      self.socket = socket
      self.binDirectory = binDirectory
      self.runDirectory = runDirectory
    }
  }

  /// How long an expectation waits to hold, unless its step says `within`.
  static let defaultWithin = Duration.seconds(10)

  let scenario: Scenario
  let options: Options
  let scenarioDirectory: String
  /// Told of each step as it ends (the CLI prints it).
  public var onStep: (StepResult) -> Void = { _ in }
  /// Told of a chaos session's seed as it begins.
  public var onChaos: (UInt64) -> Void = { _ in }

  public init(scenario: Scenario, scenarioPath: String, options: Options) {
    self.scenario = scenario
    self.options = options
    scenarioDirectory = directoryPart(of: scenarioPath)
  }

  /// Runs the scenario; throws only when it cannot run at all (jetsamd would not start).
  public func run() throws -> LabRun {
    try FileManager.default.createDirectory(atPath: options.runDirectory, withIntermediateDirectories: true)
    var placeholders = ScenarioPlaceholders(
      scenarioDirectory: scenarioDirectory, runDirectory: options.runDirectory)
    // Removed once the daemon has stopped (defers run in reverse), when the apps that wrote in it have ended.
    defer { placeholders.removeTemporaryDirectory() }
    let scenario = try placeholders.fill(self.scenario)
    var hosts = scenario.hosts.filter { host in !options.hosts.contains { $0.name == host.name } }
    hosts += options.hosts
    if !hosts.isEmpty { return try runAcross(hosts, scenario: scenario) }
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
    let interval = options.memoryInterval ?? min(5, max(0.25, Double(scenario.apps.count) / 50))
    let timeline = try Timeline(socket: socket, interval: interval)
    defer { timeline.close() }
    let started = Date()
    let origin = timeline.snapshot.monotonicNanoseconds
    var session = LabSession(
      client: client, timeline: timeline, origin: origin,
      commands: Self.commandResolver(
        baseDirectory: scenarioDirectory, binDirectory: options.binDirectory, runDirectory: options.runDirectory),
      apps: scenario.apps, exerciseLog: options.runDirectory + "/exercise.log")
    var results: [StepResult] = []
    for step in scenario.steps {
      let result = session.perform(step)
      results.append(result)
      onStep(result)
    }
    var chaos: ChaosRecord?
    if let settings = scenario.chaos {
      let seed = options.seed ?? settings.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
      onChaos(seed)
      let duration = options.chaosDuration ?? settings.duration
      var shortened = settings
      shortened.duration = duration
      chaos = session.runChaos(ChaosPlan(settings: shortened, seed: seed), duration: duration)
    }
    // The last exits a step caused are in flight: they count once durable (or not at all after a while).
    session.settle()
    var checks = session.checks(scenario: scenario)
    if let chaos { checks = session.chaosChecks(chaos) + checks }
    for check in checks {
      results.append(check)
      onStep(check)
    }
    var resources = RunResources(runner: ProcessUsage.of(getpid()))
    if let pid = daemon?.pid { resources.daemon = ProcessUsage.of(pid) }
    return LabRun(
      scenario: scenario.name, file: scenario.file, started: started, origin: origin, steps: results,
      timeline: timeline, chaos: chaos, resources: resources,
      metrics: LaunchFigures.fetch(client, since: started))
  }

  /// argv with `{scenarioDir}` (`baseDirectory`) and `{runDir}` filled in; a first word without a slash is taken
  /// from beside jetsam-lab if it is there, else from PATH; a relative path is relative to `baseDirectory` (the
  /// scenario's directory).
  static func commandResolver(baseDirectory: String, binDirectory: String, runDirectory: String)
    -> ([String]) -> [String]
  {
    { command in
      var words = command.map {
        $0.replacingOccurrences(of: "{scenarioDir}", with: baseDirectory)
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
          words[0] = baseDirectory + "/" + first
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
