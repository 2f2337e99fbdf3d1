import Foundation
import Glibc
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// A program the kit started, the way jetsam starts programs (``spawnProcess(_:)``: clone3 with a pidfd, signal
/// mask and dispositions reset, every descriptor but its standard ones closed at exec), not through Foundation's
/// `Process`, which learns that a child ended only once every copy of the pipes it hands the child is closed: a
/// program that leaves a background process holding them (a daemon) kept it waiting for good.
///
/// Its end is seen on its pidfd and reaped there once; signals go through the pidfd too, so they never reach a
/// later owner of its pid.
final class SpawnedProgram: @unchecked Sendable {
  let pid: Int32
  /// Polls readable once the program has ended.
  let pidfd: FileDescriptor
  private let lock = NSLock()
  private var end: ProcessEnd?

  /// Starts `executable` with `arguments`, stdin from /dev/null, stdout and stderr to the given descriptors (the
  /// child gets its own copies; the caller keeps and closes these).
  ///
  /// - Parameter environment: the whole environment, or `nil` to pass on this process's.
  /// - Throws: ``TestKitError`` naming the program and the step that failed.
  init(
    _ executable: String, _ arguments: [String], environment: [String: String]?, stdout: FileDescriptor,
    stderr: FileDescriptor
  ) throws(TestKitError) {
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    // The spawn always writes the child's oom_score_adj: this process's own, which it may always write again.
    let request = SpawnRequest(
      arguments: [executable] + arguments, executable: executable, environment: variables, cgroupDirectory: nil,
      oomScoreAdj: (try? oomScoreAdj(pid: getpid())) ?? 0, stdout: stdout, stderr: stderr)
    let process: SpawnedProcess
    do { process = try spawnProcess(request) } catch { throw TestKitError("cannot start \(executable): \(error)") }
    pid = process.pid
    pidfd = process.pidfd
  }

  deinit { pidfd.close() }

  /// How it ended, reaping it, once it has; nil while it runs.
  var endIfEnded: ProcessEnd? {
    lock.withLock {
      if end == nil {
        // ECHILD: something else reaped it; it has ended all the same.
        do { end = try reapExit(pidfd: pidfd) } catch { end = .unobserved }
      }
      return end
    }
  }

  /// Waits up to `timeout` (nil: for good) for its end; nil when it still runs.
  @discardableResult
  func waitForEnd(timeout: Duration?) -> ProcessEnd? {
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
  func signal(_ signal: Int32) {
    _ = try? sendSignal(pidfd: pidfd, Signal(rawValue: signal))
  }

  /// Its exit status or the number of the signal that ended it (as Foundation's `terminationStatus`); -1 while it
  /// runs or when its end could not be learnt.
  var terminationStatus: Int32 {
    switch endIfEnded {
    case .exited(let code): code
    case .signaled(let signal, _): signal
    case .unobserved, nil: -1
    }
  }
}

/// Milliseconds from now to `deadline` for poll(2), rounded up (0 once it has passed).
func pollMilliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
  let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
  if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
  return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
}

/// A pipe for a child's output: both ends close-on-exec (the spawn gives the child its own copy of the write end,
/// and no other child may hold one), the read end non-blocking when asked.
func outputPipe(nonblockingRead: Bool) throws(TestKitError) -> (read: FileDescriptor, write: FileDescriptor) {
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { throw TestKitError("\(SystemError.current("pipe"))") }
  for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
  if nonblockingRead { _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) }
  return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
}
