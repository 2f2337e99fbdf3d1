import JetsamCore
import JetsamSpawning

/// Runs what jetsamd starts for apps besides the apps themselves: their command hooks and the commands that say
/// whether a program that does not speak the protocol is up and what state it holds, all through one
/// ``AppCommandRunner`` (each in its app's cgroup, its end seen through its pidfd, never waited for).
final class HookRunner {
  /// Runs the apps' hooks and their `ready` and `digest` commands.
  let commands: AppCommandRunner
  /// What the runs printed, copied into their apps' logs.
  let logCopies: AppLogCopies

  init(loop: any LoopScheduling, launcher: any ProcessLauncher, signals: any SignalSender, stateDirectory: String) {
    commands = AppCommandRunner(loop: loop, launcher: launcher, signals: signals)
    logCopies = AppLogCopies(stateDirectory: stateDirectory)
  }

  /// Stops watching app `name`'s hooks and commands (the app is gone; they die with its cgroup).
  func forget(_ name: String) {
    commands.forget(name)
  }
}
