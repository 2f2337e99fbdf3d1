import Foundation
import Glibc
import JetsamConfig
import JetsamControlClient
import JetsamCore
import JetsamProtocol

/// `jetsam-lab check NAME -- CMD ARGS...`: one program through the standard battery a phone puts apps through, on
/// a private jetsamd with short deadlines, each check judged by the exit record or verdict it produced. A program
/// that does not speak the protocol may be given commands that speak for it (``ProgramCommands``, launched with it
/// as `jetsamctl launch` launches them) and an exercise (``CheckExercise``).
public final class CheckBattery {
  /// The daemon's config: short deadlines and budgets, so that the battery takes half a minute; no automatic
  /// suspension (the battery suspends when it means to). The background CPU limit is fatal as iOS's is (the kill
  /// as soon as the window's CPU time reaches it), at a quarter of iOS's 80 %: an app at rest in the background uses
  /// next to nothing, while a busy loop on a loaded machine may get well under 80 % of a core and would slip
  /// through. didEnterBackground keeps iOS's own deadline (about 5 s): a program without the protocol saves through
  /// a real command (`redis-cli SAVE`: a write and an fsync), and on a loaded machine's disk that alone can take
  /// longer than the other, shortened deadlines. For the same reason a background task gets 8 s (iOS's is about
  /// 30 s): the demo app's save under it took more than 3 s beside four busy loops on a loaded CI machine.
  static let config = """
    {
      device: { ram: "2G" },
      suspend: { backgroundGrace: null },
      watchdog: { launch: "3s", foreground: "2s", background: "5s", terminate: "2s" },
      backgroundTasks: { budget: "8s", expirationWarning: "2s", grace: "1s" },
      cpuMonitor: { background: { fatal: { limit: 20, window: "3s" }, nonFatal: null } },
    }
    """
  /// How long a suspension counts as long (the staleness check); an app whose state is valid for less shows it.
  public static let longSuspension = 3.0

  private let name: String
  private let command: [String]
  private let commands: ProgramCommands
  private let exercise: String?
  private let options: LabRunner.Options
  /// Told of each check as it is judged.
  public var onCheck: (StepResult) -> Void = { _ in }

  /// - Parameters:
  ///   - name: the app's name.
  ///   - command: the program and its arguments.
  ///   - commands: the commands that speak for it, handed to jetsamd with each launch.
  ///   - exercise: a shell command line run after each launch becomes active, so that there is state to lose.
  ///   - options: where jetsamd and the reports are.
  public init(
    name: String, command: [String], commands: ProgramCommands = ProgramCommands(), exercise: String? = nil,
    options: LabRunner.Options
  ) {
    self.name = name
    self.command = command
    self.commands = commands
    self.exercise = exercise
    self.options = options
  }

  public func run() throws -> LabRun {
    let config: [String: JSONTree]
    let timings: LifecycleTimings
    do {
      config = try ConfigLoader.json5Object(bytes: Array(Self.config.utf8), file: "check")
      // The deadlines the checks wait out, read from the config the daemon gets.
      timings = try ConfigLoader.parse(Self.config, file: "check").lifecycleTimings
    } catch {
      throw LabError("\(error)")
    }
    // The server the sockets check offers the program, for as long as the battery runs.
    let server = try CheckServer()
    defer { server.close() }
    let scenario = Scenario(
      name: "check-\(name)", file: "check \(name)", profile: nil, config: config,
      apps: [
        name: LabApp(
          command: command, environment: [CheckServer.variable: server.address], acknowledgements: .auto,
          commands: commands)
      ], steps: [], noUnexpectedExits: false)
    try FileManager.default.createDirectory(atPath: options.runDirectory, withIntermediateDirectories: true)
    guard geteuid() == 0 else { throw LabError("jetsam-lab check needs root: its jetsamd creates cgroups") }
    let daemon = try LabDaemon(
      jetsamd: options.binDirectory + "/jetsamd", scenario: scenario, directory: options.runDirectory + "/jetsamd")
    defer { daemon.stop() }
    let client = try ControlClient(path: daemon.socketPath)
    let timeline = try Timeline(socket: daemon.socketPath, interval: 0.25)
    defer { timeline.close() }
    let started = Date()
    let origin = timeline.snapshot.monotonicNanoseconds
    let session = LabSession(
      client: client, timeline: timeline, origin: origin,
      // As a scenario's commands, the working directory standing for the scenario's.
      commands: LabRunner.commandResolver(
        baseDirectory: FileManager.default.currentDirectoryPath, binDirectory: options.binDirectory,
        runDirectory: options.runDirectory), apps: scenario.apps, exerciseLog: options.runDirectory + "/exercise.log")
    var probe = CheckProbe(
      app: name, session: session, timings: timings, server: server, commands: commands,
      exercise: exercise.map { CheckExercise(line: $0, logPath: options.runDirectory + "/exercise.log") })
    var results: [StepResult] = []
    for check in probe.battery() {
      results.append(check)
      onCheck(check)
    }
    return LabRun(
      scenario: scenario.name, file: "\(name): \(command.joined(separator: " "))", started: started, origin: origin,
      steps: results, timeline: timeline, metrics: LaunchFigures.fetch(client, since: started))
  }
}
