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
/// started like a hook, its end seen through its pidfd, killed when its timeout passes (hooks have none: the event's
/// deadline bounds them). Nothing waits: the end, the timer and the reading all happen on the loop, and reading what
/// a command prints costs the loop one slice at a time, however much it prints. Whenever the pipe turns readable,
/// what it holds past the last ``maximumOutput`` bytes is dropped in the kernel (spliced to /dev/null: as many newer
/// bytes follow, so the tail kept stays exact), then one read of at most ``maximumOutput`` bytes goes into the tail
/// kept. A read that comes back full (a flood) leaves the pipe unwatched for ``floodPause``: the command blocks on
/// its full pipe meanwhile, rather than the loop spinning on a pipe that is always readable. At its end one more
/// slice is read, never a wait for the end of file (a process the command left behind may hold the pipe open).
final class AppCommandRunner {
  private final class Running {
    let process: SpawnedProcess
    let output: FileDescriptor?
    let started: Instant
    let ended: (AppCommandOutcome) -> Void
    var watch: (any LoopSource)?
    /// The pipe's watch: nil while a flood pauses it, and once its end of file was read.
    var reading: (any LoopSource)?
    /// Ends a flood's pause (made at the first one).
    var pause: (any LoopSource)?
    var timer: (any LoopSource)?
    var timedOut = false
    /// The pipe's end of file was read (or it failed): nothing more comes.
    var outputEnded = false
    /// The last ``AppCommandRunner/maximumOutput`` bytes read so far.
    var printed = OutputTail(capacity: AppCommandRunner.maximumOutput)
    init(
      process: SpawnedProcess, output: FileDescriptor?, started: Instant,
      ended: @escaping (AppCommandOutcome) -> Void
    ) {
      self.process = process
      self.output = output
      self.started = started
      self.ended = ended
    }

    /// How one slice of reading went.
    enum Slice {
      /// The read came back full: the pipe may well hold more already.
      case full
      /// It came back short, or the pipe was empty.
      case short
      /// The end of file, or an error: nothing more comes.
      case ended
    }

    /// One slice of the pipe, without waiting: drops what it holds past the last ``AppCommandRunner/maximumOutput``
    /// bytes (moved to `sink` in the kernel), then reads once, at most that much, into ``printed``.
    func readSlice(discardingInto sink: FileDescriptor?) -> Slice {
      guard let output, !outputEnded else { return .ended }
      let kept = AppCommandRunner.maximumOutput
      let held = Int(jetsam_pipe_held(output.rawValue))
      if held > kept { discard(held - kept, from: output, into: sink) }
      while true {
        let count = printed.read(from: output.rawValue, atMost: kept)
        if count < 0 && errno == EINTR { continue }
        if count < 0 && errno == EAGAIN { return .short }
        if count <= 0 {
          outputEnded = true
          return .ended
        }
        return count == kept ? .full : .short
      }
    }

    /// Drops the `length` oldest bytes the pipe holds (fewer when it holds fewer): moved to `sink` inside the
    /// kernel, or, where that fails, read into ``printed``, which the newer bytes then push them out of. Bounded
    /// by `length`, itself by the pipe's size.
    private func discard(_ length: Int, from output: FileDescriptor, into sink: FileDescriptor?) {
      var left = length
      while let sink, left > 0 {
        let moved = jetsam_splice(output.rawValue, sink.rawValue, left)
        if moved < 0 && errno == EINTR { continue }
        guard moved > 0 else { break }
        left -= moved
      }
      while left > 0 {
        let count = printed.read(from: output.rawValue, atMost: left)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return }
        left -= count
      }
    }

    /// Stops reading the pipe (it stays open until ``close()``).
    func stopReading() {
      reading?.cancel()
      pause?.cancel()
      reading = nil
      pause = nil
    }

    func close() {
      watch?.cancel()
      timer?.cancel()
      watch = nil
      timer = nil
      stopReading()
      output?.close()
      process.pidfd.close()
    }
  }

  /// The most output kept from one run (its last bytes): a digest is a line, so anything longer is not one.
  static let maximumOutput = 65536
  /// The size asked for each run's pipe (its default is 64 KiB): room for a burst to be written without waiting on
  /// the loop. Refused (a user's pipe quota, `fs.pipe-max-size`), the pipe keeps its default.
  static let pipeBytes: Int32 = 1 << 20
  /// How long a flood (a read that came back full) leaves the pipe unwatched.
  static let floodPause = Duration.milliseconds(5)

  private let loop: any LoopScheduling
  private let launcher: any ProcessLauncher
  private let signals: any SignalSender
  private var running: [String: [Running]] = [:]
  /// /dev/null, where output past what is kept goes inside the kernel (nil when it could not be opened: that output
  /// is then read and dropped).
  private let discarded: FileDescriptor?

  init(loop: any LoopScheduling, launcher: any ProcessLauncher, signals: any SignalSender) {
    self.loop = loop
    self.launcher = launcher
    self.signals = signals
    discarded = try? FileDescriptor.open("/dev/null", O_WRONLY)
  }

  deinit { discarded?.close() }

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
      _ = jetsam_pipe_resize(ends[0], Self.pipeBytes)
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
      try watchOutput(run)
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

  /// Watches the run's pipe, if it has one.
  private func watchOutput(_ run: Running) throws {
    guard let output = run.output else { return }
    run.reading = try loop.addWatch(fd: output.rawValue, events: EpollEvents.readable) {
      [unowned self, unowned run] _ in
      self.readSlice(of: run)
    }
  }

  /// Reads one slice of the run's output (its pipe turned readable, or a pause ended), then waits for the pipe to
  /// turn readable again after a short read, for the end of a pause after a full one, for nothing at its end.
  private func readSlice(of run: Running) {
    switch run.readSlice(discardingInto: discarded) {
    case .ended:
      run.stopReading()
    case .full:
      pause(run)
    case .short:
      guard run.reading == nil else { return }
      // The end of a pause. Where the watch cannot be made again, the pause's timer reads on.
      do { try watchOutput(run) } catch { pause(run) }
    }
  }

  /// Leaves the run's pipe unwatched for ``floodPause``, then reads its next slice.
  private func pause(_ run: Running) {
    let deadline = loop.now().advanced(by: Self.floodPause)
    if let pause = run.pause {
      pause.schedule(at: deadline)
    } else {
      // Without a timer the watch stays: every turn still reads one slice, no more.
      let handler = { [unowned self, unowned run] in self.readSlice(of: run) }
      guard let pause = try? loop.addTimer(at: deadline, handler: handler) else { return }
      run.pause = pause
    }
    run.reading?.cancel()
    run.reading = nil
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
    // One last slice: what the pipe holds now (its last bytes), however much it held, and no wait for its end of
    // file.
    _ = run.readSlice(discardingInto: discarded)
    let output = String(decoding: run.printed.bytes, as: UTF8.self)
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
