import Foundation
import Glibc

/// A program the bench started: its pid, its stdout and stderr together as a ``LineLog``, and a cleanup entry
/// that SIGKILLs it (by pid, never by name) should the bench end before ``stop(signal:grace:)``.
final class ChildProcess: @unchecked Sendable {
  let pid: Int32
  let log: LineLog
  let executable: String
  private let process: Process
  private var cleanupID: Int?

  /// Starts `executable` with `arguments`; stdin is /dev/null.
  init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
    // Close-on-exec on both ends: only this child gets the write end (as its stdout and stderr, via dup2).
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let writer = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
    process.standardOutput = writer
    process.standardError = writer
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      close(fds[0])
      close(fds[1])
      throw BenchError("cannot start \(executable): \(error)")
    }
    close(fds[1])
    self.process = process
    self.executable = executable
    pid = process.processIdentifier
    log = LineLog(readingFrom: fds[0])
    let pid = self.pid
    cleanupID = CleanupRegistry.shared.add {
      if process.isRunning {
        kill(pid, SIGKILL)
        process.waitUntilExit()
      }
    }
  }

  var isRunning: Bool { process.isRunning }

  /// The exit status (or terminating signal), once it has ended.
  var terminationStatus: Int32 { process.terminationStatus }

  /// Sends `sig` to this process (by pid).
  func signal(_ sig: Int32) {
    if process.isRunning { kill(pid, sig) }
  }

  /// Waits up to `timeout` seconds; true when it has ended.
  @discardableResult
  func waitForExit(timeout: Double) -> Bool {
    let start = MonotonicTime.now()
    while process.isRunning && MonotonicTime.seconds(since: start) < timeout { MonotonicTime.sleep(milliseconds: 2) }
    return !process.isRunning
  }

  /// Sends `signal`, waits up to `grace` seconds, then SIGKILLs; returns when it has ended.
  func stop(signal sig: Int32 = SIGTERM, grace: Double = 5) {
    signal(sig)
    if !waitForExit(timeout: grace) {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
    if let cleanupID { CleanupRegistry.shared.remove(cleanupID) }
    cleanupID = nil
  }

  /// Runs a program to completion (up to `timeout` seconds, then SIGKILL) and returns its status and output.
  static func run(_ executable: String, _ arguments: [String], timeout: Double = 30) throws -> (
    status: Int32, output: String
  ) {
    let child = try ChildProcess(executable, arguments)
    if !child.waitForExit(timeout: timeout) { child.stop(signal: SIGKILL, grace: 1) }
    child.stop(grace: 0)
    // The reader thread sees end of file right after the exit.
    let start = MonotonicTime.now()
    while !child.log.isFinished && MonotonicTime.seconds(since: start) < 2 { MonotonicTime.sleep(milliseconds: 1) }
    return (child.terminationStatus, child.log.text)
  }
}
