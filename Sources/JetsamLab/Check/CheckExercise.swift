import Foundation
import Glibc
import JetsamDaemonProcess

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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", line]
    process.standardInput = FileHandle.nullDevice
    guard
      FileManager.default.fileExists(atPath: logPath) || FileManager.default.createFile(atPath: logPath, contents: nil),
      let log = FileHandle(forWritingAtPath: logPath)
    else { return "--exercise: cannot open its log \(logPath)" }
    defer { try? log.close() }
    // Appended: the file is opened at its start, and the shell writes where this handle's offset is.
    _ = try? log.seekToEnd()
    log.write(Data("$ \(line)\n".utf8))
    // Where this run's output begins: its last line is the failure's detail.
    let start = (try? log.seekToEnd()) ?? 0
    process.standardOutput = log
    process.standardError = log
    do {
      try process.run()
    } catch {
      return "--exercise \"\(line)\" could not start: \(error)"
    }
    let ended = eventually(timeout: Self.timeout, interval: .milliseconds(10)) { !process.isRunning }
    // Our own child, by its pid: the shell, which a line's own commands outlive only for as long as they hang.
    if !ended { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    guard ended else { return "--exercise \"\(line)\" did not end within \(Self.timeout.secondsText) s" }
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      let output = (try? String(contentsOfFile: logPath, encoding: .utf8)).map {
        String(decoding: Array($0.utf8).dropFirst(Int(start)), as: UTF8.self)
      }
      let last = output?.split(separator: "\n").last.map { ": \($0)" } ?? ""
      let how =
        process.terminationReason == .exit
        ? "exited \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
      return "--exercise \"\(line)\" \(how)\(last)"
    }
    return nil
  }
}
