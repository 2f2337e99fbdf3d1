import Glibc
import JetsamCore

/// Runs the command hooks of apps that do not speak the protocol: each runs inside its app's cgroup, and its
/// end (seen through its pidfd, never waited for) answers the event it ran for.
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

  init(loop: any LoopScheduling, launcher: any ProcessLauncher) {
    self.loop = loop
    self.launcher = launcher
  }

  /// Starts `request` for app `name`; `ended` runs on the loop when it has ended.
  func run(_ request: SpawnRequest, for name: String, ended: @escaping () -> Void) throws {
    let hook = Running(process: try launcher.spawn(request))
    do {
      hook.source = try loop.addWatch(fd: hook.process.pidfd.rawValue, events: EpollEvents.readable) {
        [unowned self, unowned hook] _ in
        _ = try? self.launcher.reap(pidfd: hook.process.pidfd)
        hook.close()
        self.running[name]?.removeAll { $0 === hook }
        ended()
      }
    } catch {
      hook.close()
      throw error
    }
    running[name, default: []].append(hook)
  }

  /// Stops watching app `name`'s hooks (the app is gone; they die with its cgroup).
  func forget(_ name: String) {
    for hook in running.removeValue(forKey: name) ?? [] { hook.close() }
  }
}
