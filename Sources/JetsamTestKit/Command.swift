import Foundation
import Glibc
import JetsamDaemonProcess

/// What a finished program printed and how it ended.
public struct CommandResult: Sendable {
  /// The exit status, or the number of the signal that ended it (Foundation's `terminationStatus`).
  public var status: Int32
  /// Everything it wrote to stdout, byte for byte (as UTF-8).
  public var stdout: String
  /// Everything it wrote to stderr.
  public var stderr: String
}

/// Runs a program to completion, capturing stdout and stderr apart.
///
/// - Parameters:
///   - environment: the whole environment, or `nil` to pass on this process's.
///   - timeout: how long it may run; then it is SIGKILLed (by pid) and this throws.
/// - Throws: ``TestKitError`` when it cannot start or runs out of time.
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  timeout: Duration = .seconds(30)
) throws -> CommandResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  do {
    try process.run()
  } catch {
    throw TestKitError("cannot start \(executable): \(error)")
  }
  // Drain both pipes while the process runs, so a large output cannot block it.
  let outData = LockedData()
  let errData = LockedData()
  let group = DispatchGroup()
  for (pipe, sink) in [(out, outData), (err, errData)] {
    group.enter()
    DispatchQueue.global().async {
      sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
      group.leave()
    }
  }
  let ended = eventually(timeout: timeout, interval: .milliseconds(2)) { !process.isRunning }
  if !ended { kill(process.processIdentifier, SIGKILL) }
  process.waitUntilExit()
  group.wait()
  guard ended else {
    throw TestKitError("\(executable) \(arguments.joined(separator: " ")) timed out after \(timeout.secondsText) s")
  }
  return CommandResult(
    status: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
    stderr: String(decoding: errData.get(), as: UTF8.self))
}

/// Bytes handed from a reader thread to the waiting one.
private final class LockedData: @unchecked Sendable {
  private var data = Data()
  private let lock = NSLock()
  func set(_ value: Data) { lock.withLock { data = value } }
  func get() -> Data { lock.withLock { data } }
}
