import Glibc
import JetsamDaemonProcess

/// A program started for a test or the bench: its pid, its stdout and stderr together as a ``LineLog``, and a
/// ``CleanupRegistry`` entry that SIGKILLs it (through its pidfd, never by name) should the run end before
/// ``stop(signal:grace:)``.
public final class ChildProcess: @unchecked Sendable {
  /// Its process ID.
  public let pid: Int32
  /// What it wrote to stdout and stderr, line by line.
  public let log: LineLog
  /// The program started.
  public let executable: String
  private let program: SpawnedProgram
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
    let output = try outputPipe(nonblockingRead: false)
    do {
      // The child has its copy: this one must go, or the log never reaches its end of file.
      defer { output.write.close() }
      program = try SpawnedProgram(
        executable, arguments, environment: environment, stdout: output.write, stderr: output.write)
    } catch {
      output.read.close()
      throw TestKitError("cannot start \(executable): \(error)")
    }
    self.executable = executable
    pid = program.pid
    log = LineLog(readingFrom: output.read.rawValue, realTime: realTimeLog)
    cleanupID = CleanupRegistry.shared.add { [program] in
      program.signal(SIGKILL)
      program.waitForEnd(timeout: nil)
    }
  }

  /// Whether it has not ended yet.
  public var isRunning: Bool { program.endIfEnded == nil }

  /// The exit status (or terminating signal) once it has ended; -1 before (or when its end could not be learnt).
  public var terminationStatus: Int32 { program.terminationStatus }

  /// Sends `sig` to this process (through its pidfd: nothing once it has ended).
  public func signal(_ sig: Int32) {
    program.signal(sig)
  }

  /// Waits up to `timeout` seconds; true when it has ended. Once it has, its ``log`` holds everything it wrote (even
  /// while a process it left behind keeps its output open).
  @discardableResult
  public func waitForExit(timeout: Double) -> Bool {
    program.waitForEnd(timeout: .milliseconds(Int64(timeout * 1000))) != nil
  }

  /// Sends `signal`, waits up to `grace` seconds, then SIGKILLs; returns when it has ended.
  ///
  /// - Returns: whether it ended within `grace` (false: it took the SIGKILL).
  @discardableResult
  public func stop(signal sig: Int32 = SIGTERM, grace: Double = 5) -> Bool {
    signal(sig)
    let ended = waitForExit(timeout: grace)
    if !ended {
      program.signal(SIGKILL)
      program.waitForEnd(timeout: nil)
    }
    if let cleanupID { CleanupRegistry.shared.remove(cleanupID) }
    cleanupID = nil
    return ended
  }
}
