import CJetsamShim
import Glibc
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// How one run of an app's command ended (``AppCommandRunner``).
struct AppCommandOutcome: Sendable {
  /// How the process ended; nil when it could not start or its end could not be learnt (``failure`` says which).
  var end: ProcessEnd?
  /// What it printed on its standard output, when that was kept (at most ``AppCommandRunner/maximumOutput`` bytes).
  var output = ""
  /// It outlived its timeout and was killed.
  var timedOut = false
  /// Why it could not start or be watched: a sentence naming what failed.
  var failure: String?
  /// From its start (or the attempt) to its end.
  var duration = Duration.zero
}

/// Runs the commands that speak for a program that does not speak the protocol (its `ready` and `digest`): each
/// started like a hook, its end seen through its pidfd and its output read once it has ended, killed when its
/// timeout passes (hooks have none: the event's deadline bounds them). Nothing waits: the end, the timer and the
/// reading all happen on the loop; the pipe is drained whenever it turns readable, keeping the last
/// ``maximumOutput`` bytes, so a command that prints a lot never blocks on a full pipe.
final class AppCommandRunner {
  private final class Running {
    let process: SpawnedProcess
    let output: FileDescriptor?
    let started: Instant
    let ended: (AppCommandOutcome) -> Void
    var watch: (any LoopSource)?
    var reading: (any LoopSource)?
    var timer: (any LoopSource)?
    var timedOut = false
    /// The last ``AppCommandRunner/maximumOutput`` bytes read so far.
    var printed: [UInt8] = []
    init(
      process: SpawnedProcess, output: FileDescriptor?, started: Instant,
      ended: @escaping (AppCommandOutcome) -> Void
    ) {
      self.process = process
      self.output = output
      self.started = started
      self.ended = ended
    }
    /// Reads what the pipe holds now, without waiting; false at its end of file (or an error).
    @discardableResult
    func drain() -> Bool {
      guard let output else { return false }
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = read(output.rawValue, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        if count < 0 && errno == EAGAIN { return true }
        if count <= 0 { return false }
        printed += buffer[..<count]
        if printed.count > AppCommandRunner.maximumOutput {
          printed.removeFirst(printed.count - AppCommandRunner.maximumOutput)
        }
      }
    }
    func close() {
      watch?.cancel()
      reading?.cancel()
      timer?.cancel()
      watch = nil
      reading = nil
      timer = nil
      output?.close()
      process.pidfd.close()
    }
  }

  /// The most output kept from one run (its last bytes): a digest is a line, so anything longer is not one.
  static let maximumOutput = 65536

  private let loop: any LoopScheduling
  private let launcher: any ProcessLauncher
  private let signals: any SignalSender
  private var running: [String: [Running]] = [:]

  init(loop: any LoopScheduling, launcher: any ProcessLauncher, signals: any SignalSender) {
    self.loop = loop
    self.launcher = launcher
    self.signals = signals
  }

  /// Starts the request `request` makes for app `name` (given the write end of a pipe for its standard output when
  /// `keepsOutput`, else nil), kills it once `timeout` (if any) has passed, and calls `ended` on the loop with how it
  /// ended.
  func run(
    for name: String, keepsOutput: Bool, timeout: Duration?, request: (FileDescriptor?) throws -> SpawnRequest,
    ended reportEnd: @escaping (AppCommandOutcome) -> Void
  ) {
    let started = loop.now()
    let ended = { [loop] (outcome: AppCommandOutcome) in
      var outcome = outcome
      outcome.duration = loop.now().duration(since: started)
      reportEnd(outcome)
    }
    var output: FileDescriptor?
    var input: FileDescriptor?
    if keepsOutput {
      var ends: [Int32] = [-1, -1]
      guard jetsam_pipe_nonblocking_read(&ends) == 0 else {
        return ended(AppCommandOutcome(failure: "could not start: \(SystemError.current("pipe"))"))
      }
      output = FileDescriptor(rawValue: ends[0])
      input = FileDescriptor(rawValue: ends[1])
    }
    // The launcher copies the write end before `spawn` returns: the command's end of file is then ours to see.
    defer { input?.close() }
    let spawnRequest: SpawnRequest
    do { spawnRequest = try request(input) } catch {
      output?.close()
      return ended(AppCommandOutcome(failure: "could not start: \(error)"))
    }
    launcher.spawn(spawnRequest) { [weak self] result in
      switch result {
      case .failure(let error):
        output?.close()
        ended(AppCommandOutcome(failure: "could not start: \(error)"))
      case .success(let process):
        guard let self else {
          output?.close()
          return
        }
        self.watch(
          Running(process: process, output: output, started: started, ended: reportEnd), for: name, timeout: timeout)
      }
    }
  }

  private func watch(_ run: Running, for name: String, timeout: Duration?) {
    do {
      run.watch = try loop.addWatch(fd: run.process.pidfd.rawValue, events: EpollEvents.readable) {
        [unowned self, unowned run] _ in
        self.finish(run, for: name)
      }
      if let output = run.output {
        run.reading = try loop.addWatch(fd: output.rawValue, events: EpollEvents.readable) { [unowned run] _ in
          // At its end of file (every writer gone) there is nothing more to wait for.
          if !run.drain() {
            run.reading?.cancel()
            run.reading = nil
          }
        }
      }
      if let timeout {
        run.timer = try loop.addTimer(at: loop.now().advanced(by: timeout)) { [unowned self, unowned run] in
          run.timedOut = true
          // Its end, seen through the pidfd, then reports it.
          try? self.signals.send(.kill, pidfd: run.process.pidfd)
        }
      }
    } catch {
      try? signals.send(.kill, pidfd: run.process.pidfd)
      launcher.discardExit(of: run.process.pid)
      run.close()
      return run.ended(
        AppCommandOutcome(failure: "could not be watched: \(error)", duration: loop.now().duration(since: run.started)))
    }
    running[name, default: []].append(run)
  }

  /// The run's process ended (its pidfd is readable), or the launcher now knows how: reports it once its status is
  /// known.
  private func finish(_ run: Running, for name: String) {
    let end: ProcessEnd?
    do {
      // A child of the spawner service is told later (``exitKnown(_:)``).
      guard let known = try launcher.reap(pid: run.process.pid, pidfd: run.process.pidfd) else {
        run.watch?.cancel()
        run.watch = nil
        return
      }
      end = known
    } catch {
      end = nil
    }
    run.drain()
    let output = String(decoding: run.printed, as: UTF8.self)
    running[name]?.removeAll { $0 === run }
    run.close()
    run.ended(
      AppCommandOutcome(
        end: end, output: output, timedOut: run.timedOut,
        failure: end == nil ? "its end could not be learnt" : nil, duration: loop.now().duration(since: run.started)))
  }

  /// Called with a pid whose end the launcher learnt after its pidfd turned readable (a child of the spawner service).
  func exitKnown(_ pid: pid_t) {
    for (name, runs) in running {
      if let run = runs.first(where: { $0.process.pid == pid }) { return finish(run, for: name) }
    }
  }

  /// Stops watching app `name`'s commands (the app is gone; they die with its cgroup); nothing is reported for them.
  func forget(_ name: String) {
    for run in running.removeValue(forKey: name) ?? [] {
      launcher.discardExit(of: run.process.pid)
      run.close()
    }
  }
}
