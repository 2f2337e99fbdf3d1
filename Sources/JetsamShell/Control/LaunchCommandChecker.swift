import JetsamCore
import JetsamPlatform

/// Tells whether a launch's commands can run (``LaunchCommandCheck``); the handler's seam, a fake in its tests.
protocol LaunchCommandChecking: AnyObject {
  /// Calls `then` on the loop with what keeps one of `check`'s commands from running (`LABEL: PROGRAM: why`), or
  /// nil when they can run or it could not be told (said in the log: a launch is not refused for the check's fault).
  func problem(of check: LaunchCommandCheck, then: @escaping (String?) -> Void)
}

/// Asks `jetsam-runnable`, started through the process launcher as the app's user (the spawner service under
/// systemd, where jetsamd may not change its ids), whether a launch's commands can run; the kernel answers for that
/// user, so whatever the answer says, the user could have found out alone. The user is looked up and the tool's
/// output read on a helper thread of its own (a check of a program on a hung network file system holds nothing
/// else), the tool killed past ``budget``.
final class LaunchCommandChecker: LaunchCommandChecking {
  /// How long one check may take before the tool is killed (and the launch goes ahead unchecked).
  static let budget: Duration = .seconds(5)

  private let tools: ToolStarter
  private let worker: any BackgroundRunning
  private let toolPath: String
  private let log: Logger

  /// Runs the program at `toolPath` through `launcher`; looks users up and reads its output on `worker`.
  init(
    loop: any LoopScheduling, launcher: any ProcessLauncher, toolPath: String, worker: any BackgroundRunning,
    log: Logger
  ) {
    tools = ToolStarter(loop: loop, launcher: launcher)
    self.worker = worker
    self.toolPath = toolPath
    self.log = log
  }

  func problem(of check: LaunchCommandCheck, then: @escaping (String?) -> Void) {
    worker.run(
      { check.resolve() },
      then: { [weak self] asking in
        guard let self, let asking else { return then(nil) }
        self.ask(asking, then: then)
      })
  }

  private func ask(_ asking: LaunchCommandCheck.Asking, then: @escaping (String?) -> Void) {
    let (worker, log, toolPath) = (worker, log, toolPath)
    tools.start(
      "jetsam-runnable",
      request: { output in
        SpawnRequest(
          arguments: [
            toolPath, "--user", asking.userName, "--search-path", AppCommands.searchPath, "--directory",
            asking.directory, "--",
          ] + asking.programs.flatMap { [$0.label, $0.program] },
          environment: ["PATH=/usr/bin:/bin"], workingDirectory: "/", user: asking.user, cgroupDirectory: nil,
          stdout: output)
      },
      then: { started in
        switch started {
        case .failure(let failure):
          log.warning("a launch's commands go unchecked: \(failure.message)")
          then(nil)
        case .success(let run):
          worker.run(
            { run.collect(budget: LaunchCommandChecker.budget) },
            then: { output, timedOut in
              if timedOut {
                log.warning("a launch's commands go unchecked: jetsam-runnable did not answer within 5 s")
                return then(nil)
              }
              let problem = output.split(separator: "\n").first.map(String.init)
              then(problem?.isEmpty == false ? problem : nil)
            })
        }
      })
  }
}
