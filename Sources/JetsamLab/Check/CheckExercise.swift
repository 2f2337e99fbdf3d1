import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import JetsamValues

/// `jetsam-lab check --exercise CMD`: what a user does with the program, run by the lab (not jetsamd) after each
/// launch of it becomes active, so that there is state to lose. One shell command line, run by `/bin/sh -c` as the
/// lab's user, its output appended to `exercise.log` in the run's directory.
struct CheckExercise {
  /// How long a run may take before it is killed and counts as failed: a user's action on a program that is up
  /// takes well under that, and one on a program that is not should not hold the battery.
  static let timeout = Duration.seconds(10)

  /// The command line, as given.
  let line: String
  /// Where each run's output goes.
  let logPath: String

  /// Runs it once; nil when it exited 0, else what went wrong (its status and the end of its output).
  func run() -> String? {
    let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return "--exercise: cannot open its log \(logPath): \(SystemError.current("open"))" }
    let log = FileDescriptor(rawValue: fd)
    defer { log.close() }
    let header = Array("$ \(line)\n".utf8)
    _ = header.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    // Where this run's output begins (the file is opened for appending): its last line is the failure's detail.
    let start = max(lseek(fd, 0, SEEK_END), 0)
    let shell: SpawnedProgram
    do {
      shell = try SpawnedProgram("/bin/sh", ["-c", line], stdout: log, stderr: log)
    } catch {
      return "--exercise \"\(line)\" could not start: \(error)"
    }
    guard let end = shell.waitForEnd(timeout: Self.timeout) else {
      // Our own child, through its pidfd: the shell, which a line's own commands outlive only for as long as they
      // hang.
      shell.stop(signal: SIGKILL, grace: .zero)
      return "--exercise \"\(line)\" did not end within \(Self.timeout.secondsText) s"
    }
    guard end == .exited(code: 0) else {
      let output = (try? String(contentsOfFile: logPath, encoding: .utf8)).map {
        String(decoding: Array($0.utf8).dropFirst(Int(start)), as: UTF8.self)
      }
      let last = output?.split(separator: "\n").last.map { ": \($0)" } ?? ""
      return "--exercise \"\(line)\" \(shell.endDescription)\(last)"
    }
    return nil
  }
}
