import Foundation
import Glibc
import JetsamControlClient
import JetsamPlatform
import JetsamProtocol

/// A jetsamd run as a child process, for a lab, a test or the bench: started with its arguments, awaited until its
/// control socket answers, stopped gracefully (SIGTERM, then SIGKILL) through a pidfd, its output kept.
///
/// It knows nothing of configs, cgroups or clean-up at exit: the lab's `LabDaemon` and the test kit's
/// `JetsamdInstance` add those, each its own way.
public final class DaemonProcess: @unchecked Sendable {
  /// Where the daemon's stdout and stderr go.
  public enum Output: Sendable {
    /// Into a new file at this path (a lab's `jetsamd.log`, which outlives the run).
    case file(String)
    /// Into a pipe read line by line as a ``LineLog``; at ``ObserverPriority`` when `realTime` (the bench's timings).
    case lines(realTime: Bool)
  }

  /// Its process ID.
  public var pid: Int32 { program.pid }
  /// The control socket it is expected to answer on.
  public let socketPath: String
  /// Its output line by line, for ``Output/lines(realTime:)``.
  public let lines: LineLog?
  /// Its output's file, for ``Output/file(_:)``.
  public let logFile: String?
  private let program: SpawnedProgram

  /// Starts `executable` with `arguments` (jetsamd, or a shell that execs it, keeping its pid) as a
  /// ``SpawnedProgram``: in a session of its own (the terminal's Ctrl-C reaches its starter, which stops it), stdin
  /// /dev/null. It does not wait for the daemon to answer: see ``waitUntilAnswering(timeout:)``.
  ///
  /// - Parameters:
  ///   - environment: the whole environment, or `nil` to pass on this process's.
  ///   - output: where its stdout and stderr go.
  ///   - socket: the control socket it will answer on.
  /// - Throws: ``DaemonProcessError`` when it cannot be started.
  public init(
    executable: String, arguments: [String], environment: [String: String]? = nil, output: Output, socket: String
  ) throws {
    socketPath = socket
    let readEnd: FileDescriptor?
    let writer: FileDescriptor
    switch output {
    case .file(let path):
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw DaemonProcessError("cannot create \(path): \(SystemError.current("open"))") }
      writer = FileDescriptor(rawValue: fd)
      readEnd = nil
      logFile = path
    case .lines:
      let pipe: (read: FileDescriptor, write: FileDescriptor)
      do { pipe = try outputPipe(nonblockingRead: false) } catch { throw DaemonProcessError("\(error)") }
      (readEnd, writer) = (pipe.read, pipe.write)
      logFile = nil
    }
    do {
      // The child has its copy: this one must go, or the pipe's reader never sees the end of the file.
      defer { writer.close() }
      program = try SpawnedProgram(executable, arguments, environment: environment, stdout: writer, stderr: writer)
    } catch {
      readEnd?.close()
      throw DaemonProcessError("cannot start \(executable): \(error)")
    }
    if let readEnd, case .lines(let realTime) = output {
      lines = LineLog(readingFrom: readEnd.rawValue, realTime: realTime)
    } else {
      lines = nil
    }
  }

  /// Waits until the control socket answers a status request.
  ///
  /// - Returns: the status it answered (its device cgroup, cgroup and suspend modes).
  /// - Throws: ``DaemonProcessError`` when it exits first, or does not answer within `timeout` (it is then stopped):
  ///   either with the end of its output.
  @discardableResult
  public func waitUntilAnswering(timeout: Duration = .seconds(20)) throws -> StatusInfo {
    let answered = try waitFor(timeout: timeout, interval: .milliseconds(20)) { () throws -> StatusInfo? in
      guard isRunning else {
        throw DaemonProcessError("jetsamd exited during start-up (status \(terminationStatus)):\n\(logTail())")
      }
      return try? ControlClient(path: socketPath).send(ControlRequest(verb: .status)).status
    }
    guard let answered else {
      stop(grace: .seconds(5))
      throw DaemonProcessError(
        "jetsamd did not answer on \(socketPath) within \(timeout.secondsText) s:\n\(logTail())")
    }
    return answered
  }

  /// Whether it has not ended yet (a zombie, dead but not yet reaped, has ended).
  public var isRunning: Bool { program.isRunning }

  /// Its exit status (or terminating signal); waits for it to end.
  public var terminationStatus: Int32 {
    program.waitForEnd(timeout: nil)
    return program.terminationStatus
  }

  /// Sends `sig` to it, through its pidfd (nothing once it has ended).
  public func signal(_ sig: Int32) {
    program.signal(sig)
  }

  /// Sends `sig`, waits up to `grace` for it to end, then SIGKILLs it; returns once it has ended. Safe from any
  /// thread, and to call again.
  ///
  /// - Returns: whether it ended within `grace` (false: it took the SIGKILL).
  @discardableResult
  public func stop(signal sig: Int32 = SIGTERM, grace: Duration) -> Bool {
    program.stop(signal: sig, grace: grace)
  }

  /// Everything it wrote so far.
  public var logText: String { Self.text(lines: lines, logFile: logFile) }

  /// The last `count` lines it wrote, for errors.
  public func logTail(_ count: Int = 20) -> String { Self.tail(of: logText, count) }

  private static func text(lines: LineLog?, logFile: String?) -> String {
    if let lines { return lines.text }
    guard let logFile else { return "" }
    return (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
  }

  private static func tail(of text: String, _ count: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
  }
}
