import CJetsamShim
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
  public let pid: Int32
  /// The control socket it is expected to answer on.
  public let socketPath: String
  /// Its output line by line, for ``Output/lines(realTime:)``.
  public let lines: LineLog?
  /// Its output's file, for ``Output/file(_:)``.
  public let logFile: String?
  private let process: Process
  /// Opened right after the start, before the process can be reaped: a pidfd never signals a later owner of the pid.
  private let pidfd: FileDescriptor

  /// Starts `executable` with `arguments` (jetsamd, or a shell that execs it, keeping its pid); stdin is /dev/null.
  /// It does not wait for the daemon to answer: see ``waitUntilAnswering(timeout:)``.
  ///
  /// - Parameters:
  ///   - environment: the whole environment, or `nil` to pass on this process's.
  ///   - output: where its stdout and stderr go.
  ///   - socket: the control socket it will answer on.
  /// - Throws: ``DaemonProcessError`` when it cannot be started (or is gone before its pidfd could be opened).
  public init(
    executable: String, arguments: [String], environment: [String: String]? = nil, output: Output, socket: String
  ) throws {
    socketPath = socket
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    var readEnd: Int32?
    let writer: FileHandle
    switch output {
    case .file(let path):
      guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path)
      else { throw DaemonProcessError("cannot create \(path)") }
      writer = file
      logFile = path
    case .lines:
      var fds: [Int32] = [0, 0]
      guard pipe(&fds) == 0 else { throw DaemonProcessError("\(SystemError.current("pipe"))") }
      // Close-on-exec on both ends: only this child gets the write end (as its stdout and stderr, via dup2).
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      readEnd = fds[0]
      writer = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
      logFile = nil
    }
    process.standardOutput = writer
    process.standardError = writer
    do {
      try process.run()
    } catch {
      if let readEnd { close(readEnd) }
      try? writer.close()
      throw DaemonProcessError("cannot start \(executable): \(error)")
    }
    // The child has its copy: this one must go, or the pipe's reader never sees the end of the file.
    try? writer.close()
    self.process = process
    pid = process.processIdentifier
    if let readEnd, case .lines(let realTime) = output {
      lines = LineLog(readingFrom: readEnd, realTime: realTime)
    } else {
      lines = nil
    }
    do {
      pidfd = try openPidfd(pid: pid)
    } catch {
      let output = Self.text(lines: lines, logFile: logFile)
      throw DaemonProcessError("\(executable) exited at once (\(error)):\n\(Self.tail(of: output, 20))")
    }
  }

  deinit { pidfd.close() }

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
  public var isRunning: Bool { !waitForEnd(milliseconds: 0) }

  /// Its exit status (or terminating signal); waits for it to end.
  public var terminationStatus: Int32 {
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Sends `sig` to it, through its pidfd (nothing once it has ended).
  public func signal(_ sig: Int32) {
    _ = jetsam_pidfd_send_signal(pidfd.rawValue, sig)
  }

  /// Sends `sig`, waits up to `grace` for it to end, then SIGKILLs it; returns once it has ended. Safe from any
  /// thread, and to call again.
  ///
  /// - Returns: whether it ended within `grace` (false: it took the SIGKILL).
  @discardableResult
  public func stop(signal sig: Int32 = SIGTERM, grace: Duration) -> Bool {
    signal(sig)
    let (seconds, attoseconds) = grace.components
    if waitForEnd(milliseconds: Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)) {
      return true
    }
    signal(SIGKILL)
    _ = waitForEnd(milliseconds: -1)
    return false
  }

  /// Whether it ended within `milliseconds` (-1: no limit); a pidfd polls readable once its process has ended.
  private func waitForEnd(milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, milliseconds)
      if ready >= 0 || errno != EINTR { return ready > 0 }
    }
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
