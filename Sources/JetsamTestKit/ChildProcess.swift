import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform

/// A program started for a test or the bench: its pid, its stdout and stderr together as a ``LineLog``, and a
/// ``CleanupRegistry`` entry that SIGKILLs it (by pid, never by name) should the run end before
/// ``stop(signal:grace:)``.
public final class ChildProcess: @unchecked Sendable {
  /// Its process ID.
  public let pid: Int32
  /// What it wrote to stdout and stderr, line by line.
  public let log: LineLog
  /// The program started.
  public let executable: String
  private let process: Process
  private var cleanupID: Int?

  /// Starts `executable` with `arguments`; stdin is /dev/null.
  ///
  /// - Parameters:
  ///   - environment: the whole environment, or `nil` to pass on this process's.
  ///   - realTimeLog: read the output at ``ObserverPriority`` (see ``LineLog/init(readingFrom:realTime:)``).
  /// - Throws: ``TestKitError`` when the program cannot be started.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, realTimeLog: Bool = false
  ) throws {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw TestKitError("\(SystemError.current("pipe"))") }
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
      throw TestKitError("cannot start \(executable): \(error)")
    }
    close(fds[1])
    self.process = process
    self.executable = executable
    pid = process.processIdentifier
    log = LineLog(readingFrom: fds[0], realTime: realTimeLog)
    let pid = self.pid
    cleanupID = CleanupRegistry.shared.add {
      if process.isRunning {
        kill(pid, SIGKILL)
        process.waitUntilExit()
      }
    }
  }

  /// Whether it has not ended yet.
  public var isRunning: Bool { process.isRunning }

  /// The exit status (or terminating signal), once it has ended.
  public var terminationStatus: Int32 { process.terminationStatus }

  /// Sends `sig` to this process (by pid).
  public func signal(_ sig: Int32) {
    if process.isRunning { kill(pid, sig) }
  }

  /// Waits up to `timeout` seconds; true when it has ended.
  @discardableResult
  public func waitForExit(timeout: Double) -> Bool {
    eventually(timeout: .milliseconds(Int64(timeout * 1000)), interval: .milliseconds(2)) { !process.isRunning }
  }

  /// Sends `signal`, waits up to `grace` seconds, then SIGKILLs; returns when it has ended.
  ///
  /// - Returns: whether it ended within `grace` (false: it took the SIGKILL).
  @discardableResult
  public func stop(signal sig: Int32 = SIGTERM, grace: Double = 5) -> Bool {
    signal(sig)
    let ended = waitForExit(timeout: grace)
    if !ended {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
    if let cleanupID { CleanupRegistry.shared.remove(cleanupID) }
    cleanupID = nil
    return ended
  }
}
