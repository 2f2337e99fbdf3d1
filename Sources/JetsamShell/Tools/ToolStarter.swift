import CJetsamShim
import JetsamPlatform
import JetsamSpawning

/// Starts jetsam's helper programs (`jetsam-stack`, `jetsam-sockets`) through the process launcher, so that they run
/// where the apps run and with the rights of whatever starts them (the spawner service under systemd, where
/// jetsamd's own sandbox allows neither ptrace nor the apps' network), their standard output a pipe for a helper
/// thread to read (``ToolRun``); and reaps each once it has ended, on the loop.
final class ToolStarter {
  private let loop: any LoopScheduling
  private let launcher: any ProcessLauncher
  /// The tools started, until they end (reaped through their pidfds).
  private var watches: [Int32: (any LoopSource, SpawnedProcess)] = [:]

  init(loop: any LoopScheduling, launcher: any ProcessLauncher) {
    self.loop = loop
    self.launcher = launcher
  }

  /// Starts the program `name` as `request` asks, given the write end of its output pipe; `then` runs with the
  /// run, or why it could not start (a sentence naming the program).
  func start(
    _ name: String, request: (_ output: FileDescriptor) -> SpawnRequest,
    then: @escaping (Result<ToolRun, ToolStartFailure>) -> Void
  ) {
    var ends: [Int32] = [-1, -1]
    guard jetsam_pipe_nonblocking_read(&ends) == 0 else {
      return then(.failure(ToolStartFailure("\(name) could not start: \(SystemError.current("pipe"))")))
    }
    let output = FileDescriptor(rawValue: ends[0])
    let input = FileDescriptor(rawValue: ends[1])
    launcher.spawn(request(input)) { [weak self] result in
      guard let self else { return output.close() }
      switch result {
      case .success(let process):
        do {
          let run = ToolRun(output: output, pidfd: try process.pidfd.duplicate())
          self.reapWhenEnded(process)
          then(.success(run))
        } catch {
          output.close()
          process.pidfd.close()
          then(.failure(ToolStartFailure("\(name) could not be watched: \(error)")))
        }
      case .failure(let error):
        output.close()
        then(.failure(ToolStartFailure("\(name) could not start: \(error)")))
      }
    }
    // The launcher has its own copy of the write end now (or failed): the tool's end of file is ours to see.
    input.close()
  }

  /// Reaps a tool once it has ended (its status does not matter: what it printed does).
  private func reapWhenEnded(_ process: SpawnedProcess) {
    launcher.discardExit(of: process.pid)
    let watch = try? loop.addWatch(fd: process.pidfd.rawValue, events: EpollEvents.readable) {
      [unowned self] _ in
      _ = try? self.launcher.reap(pid: process.pid, pidfd: process.pidfd)
      if let (source, process) = self.watches.removeValue(forKey: process.pid) {
        source.cancel()
        process.pidfd.close()
      }
    }
    if let watch { watches[process.pid] = (watch, process) } else { process.pidfd.close() }
  }
}
