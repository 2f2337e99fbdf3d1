import JetsamCore
import JetsamPlatform

/// Runs what jetsamd starts for apps besides the apps themselves: their command hooks and the commands that say
/// whether a program that does not speak the protocol is up and what state it holds, all through one
/// ``AppCommandRunner`` (each in its app's cgroup, its end seen through its pidfd, never waited for).
final class HookRunner {
  /// Runs the apps' hooks and their `ready` and `digest` commands.
  let commands: AppCommandRunner
  /// What the runs printed, copied into their apps' logs.
  let logCopies: AppLogCopies
  /// How a hook is described to the launcher: environment, working directory, user, cgroup, log.
  private let requests: SpawnRequests

  init(loop: any LoopScheduling, launcher: any ProcessLauncher, signals: any SignalSender, requests: SpawnRequests) {
    commands = AppCommandRunner(loop: loop, launcher: launcher, signals: signals)
    logCopies = AppLogCopies(stateDirectory: requests.stateDirectory)
    self.requests = requests
  }

  /// Starts `command`, app `name`'s hook for `event` (or its `ready` or `digest` command), as every such run starts:
  /// from `workingDirectory` (nil: the app's default), in the app's `cgroup`, as its user, its standard error in the
  /// app's log (its standard output too when `stdoutTakesErrors`, both also kept for the exit record); kills it once
  /// `timeout` (if any) has passed. Calls `ended` on the loop with how it ended, once what it printed is on its way
  /// into the log; at once with a failure when the log cannot be opened (nothing runs then).
  func start(
    _ command: [String], for event: AppEventKind, app name: String, workingDirectory: String?,
    cgroup: any AppCgroupControl, oomScoreAdj: Int32, timeout: Duration?, stdoutTakesErrors: Bool,
    ended: @escaping (AppCommandOutcome) -> Void
  ) {
    let log: FileDescriptor
    do { log = try requests.openLog(name) } catch {
      return ended(AppCommandOutcome(failure: "could not start: \(error)"))
    }
    // The launcher has its own copy of the log's descriptor once `run` returns.
    defer { log.close() }
    commands.run(
      for: name, keepsOutput: true, timeout: timeout,
      request: { [requests] stdout in
        try requests.hook(
          command, event: event, app: name, workingDirectory: workingDirectory, cgroup: cgroup,
          oomScoreAdj: oomScoreAdj, output: log, stdout: stdout, stdoutTakesErrors: stdoutTakesErrors)
      },
      ended: { [logCopies] outcome in
        logCopies.append(outcome.output, toLogOf: name)
        ended(outcome)
      })
  }

  /// Stops watching app `name`'s hooks and commands (the app is gone; they die with its cgroup).
  func forget(_ name: String) {
    commands.forget(name)
  }
}
