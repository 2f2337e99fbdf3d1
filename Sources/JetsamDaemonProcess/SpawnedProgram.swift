import Foundation
import Glibc
import JetsamPlatform
import JetsamValues

/// A program started by the lab, the tests or the bench, the way jetsam starts programs (``spawnProcess(_:)``:
/// clone3 with a pidfd, a session of its own, signal mask and dispositions reset, every descriptor but its standard
/// ones closed at exec): the one way these start a helper program (a private jetsamd, ssh, a command).
///
/// Not Foundation's `Process`: it learns that a child ended only once every copy of a socket it hands the child is
/// closed, then waits for it in `waitpid` on its one manager thread: a program that closes every inherited
/// descriptor as it starts (ssh) held that thread until it ended, and one that leaves a background process holding
/// its pipes (a daemon) kept it waiting for good.
///
/// Its end is seen on its pidfd and reaped there, by whoever asks first; signals go through the pidfd too, so they
/// never reach a later owner of its pid. Its own session keeps the terminal's signals (Ctrl-C) to its starter,
/// which stops it in order.
public final class SpawnedProgram: @unchecked Sendable {
  /// Its process ID.
  public let pid: Int32
  /// Polls readable once the program has ended.
  public let pidfd: FileDescriptor
  private let lock = NSLock()
  private var end: ProcessEnd?

  /// Starts `executable` with `arguments`, its stdin, stdout and stderr from and to the given descriptors (the child
  /// gets its own copies; the caller keeps and closes these; nil: /dev/null).
  ///
  /// - Parameter environment: the whole environment, or `nil` to pass on this process's.
  /// - Throws: ``SpawnError`` naming the step that failed (the program's own code never ran).
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: FileDescriptor? = nil,
    stdout: FileDescriptor?, stderr: FileDescriptor?
  ) throws(SpawnError) {
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    // The spawn always writes the child's oom_score_adj: this process's own, which it may always write again.
    let request = SpawnRequest(
      arguments: [executable] + arguments, executable: executable, environment: variables, cgroupDirectory: nil,
      oomScoreAdj: (try? oomScoreAdj(pid: getpid())) ?? 0, stdin: stdin, stdout: stdout, stderr: stderr)
    let process = try spawnProcess(request)
    pid = process.pid
    pidfd = process.pidfd
  }

  deinit {
    // Reaped if it has ended, so that no zombie outlives its owner; one still running is left alone.
    _ = endIfEnded
    pidfd.close()
  }

  /// How it ended, reaping it, once it has; nil while it runs.
  public var endIfEnded: ProcessEnd? {
    lock.withLock {
      if end == nil {
        // ECHILD: something else reaped it; it has ended all the same.
        do { end = try reapExit(pidfd: pidfd) } catch { end = .unobserved }
      }
      return end
    }
  }

  /// Whether it has not ended yet (a zombie, dead but not yet reaped, has ended).
  public var isRunning: Bool { endIfEnded == nil }

  /// Waits up to `timeout` (nil: for good) for its end; nil when it still runs.
  @discardableResult
  public func waitForEnd(timeout: Duration?) -> ProcessEnd? {
    let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
    while true {
      if let end = endIfEnded { return end }
      let milliseconds = deadline.map { pollMilliseconds(until: $0) } ?? -1
      if milliseconds == 0 { return nil }
      var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
      _ = poll(&entry, 1, milliseconds)
    }
  }

  /// Sends `signal` through its pidfd (nothing once it has ended).
  public func signal(_ signal: Int32) {
    _ = try? sendSignal(pidfd: pidfd, Signal(rawValue: signal))
  }

  /// Sends `sig`, waits up to `grace` for it to end, then SIGKILLs it; returns once it has ended. Safe from any
  /// thread, and to call again.
  ///
  /// - Returns: whether it ended within `grace` (false: it took the SIGKILL).
  @discardableResult
  public func stop(signal sig: Int32 = SIGTERM, grace: Duration) -> Bool {
    signal(sig)
    if waitForEnd(timeout: grace) != nil { return true }
    signal(SIGKILL)
    waitForEnd(timeout: nil)
    return false
  }

  /// Its exit status or the number of the signal that ended it (as Foundation's `terminationStatus`); -1 while it
  /// runs or when its end could not be learnt.
  public var terminationStatus: Int32 {
    switch endIfEnded {
    case .exited(let code): code
    case .signaled(let signal, _): signal
    case .unobserved, nil: -1
    }
  }

  /// How it ended, for messages: `exited 3`, `was killed by signal 9`, `ended unobserved`; `runs` before.
  public var endDescription: String {
    switch endIfEnded {
    case .exited(let code): "exited \(code)"
    case .signaled(let signal, _): "was killed by signal \(signal)"
    case .unobserved: "ended unobserved"
    case nil: "runs"
    }
  }
}

/// Milliseconds from now to `deadline` for poll(2), rounded up (0 once it has passed).
public func pollMilliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
  let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
  if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
  return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
}

/// A pipe for a child's output (or input): both ends close-on-exec (the spawn gives the child its own copy of its
/// end, and no other child may hold one), the read end non-blocking when asked.
public func outputPipe(nonblockingRead: Bool) throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { throw SystemError.current("pipe") }
  for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
  if nonblockingRead { _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) }
  return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
}
