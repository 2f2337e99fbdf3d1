import Glibc
import JetsamCore
import JetsamSpawning

/// Runs the command hooks of apps that do not speak the protocol: each runs inside its app's cgroup, and its
/// end (seen through its pidfd, never waited for) answers the event it ran for; and, through ``commands``, the
/// commands that say whether such a program is up and what state it holds.
final class HookRunner {
  private final class Running {
    let process: SpawnedProcess
    var source: (any LoopSource)?
    init(process: SpawnedProcess) { self.process = process }
    func close() {
      source?.cancel()
      source = nil
      process.pidfd.close()
    }
  }

  private let loop: any LoopScheduling
  private let launcher: any ProcessLauncher
  private var running: [String: [Running]] = [:]
  /// Runs the apps' `ready` and `digest` commands.
  let commands: AppCommandRunner

  init(loop: any LoopScheduling, launcher: any ProcessLauncher, signals: any SignalSender) {
    self.loop = loop
    self.launcher = launcher
    commands = AppCommandRunner(loop: loop, launcher: launcher, signals: signals)
  }

  /// Starts `request` for app `name`; `ended` runs on the loop when it has ended, or could not start (with why).
  func run(_ request: SpawnRequest, for name: String, ended: @escaping (SpawnError?) -> Void) {
    launcher.spawn(request) { [weak self] result in
      guard let self else { return }
      switch result {
      case .failure(let error): ended(error)
      case .success(let process): self.watch(process, for: name, ended: ended)
      }
    }
  }

  private func watch(_ process: SpawnedProcess, for name: String, ended: @escaping (SpawnError?) -> Void) {
    let hook = Running(process: process)
    // Only its end matters, not how: a status that comes later is dropped.
    launcher.discardExit(of: process.pid)
    do {
      hook.source = try loop.addWatch(fd: hook.process.pidfd.rawValue, events: EpollEvents.readable) {
        [unowned self, unowned hook] _ in
        _ = try? self.launcher.reap(pid: hook.process.pid, pidfd: hook.process.pidfd)
        hook.close()
        self.running[name]?.removeAll { $0 === hook }
        ended(nil)
      }
    } catch {
      // Unwatched, its end would never answer the event: it counts as ended now (the app's cgroup ends it later).
      hook.close()
      return ended(nil)
    }
    running[name, default: []].append(hook)
  }

  /// Stops watching app `name`'s hooks (the app is gone; they die with its cgroup).
  func forget(_ name: String) {
    for hook in running.removeValue(forKey: name) ?? [] { hook.close() }
    commands.forget(name)
  }
}
