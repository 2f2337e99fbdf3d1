import Glibc
import JetsamDaemonProcess
import JetsamPlatform

/// What a finished program printed and how it ended.
public struct CommandResult: Sendable {
  /// The exit status, or the number of the signal that ended it (as Foundation's `terminationStatus`; -1 when its
  /// end could not be learnt).
  public var status: Int32
  /// Everything it wrote to stdout, byte for byte (as UTF-8).
  public var stdout: String
  /// Everything it wrote to stderr.
  public var stderr: String
}

/// Runs a program to completion, capturing stdout and stderr apart.
///
/// It returns once the program has ended, with what it wrote until then: a background process it left holding
/// its stdout or stderr (a daemon it started) is not waited for.
///
/// - Parameters:
///   - environment: the whole environment, or `nil` to pass on this process's.
///   - timeout: how long it may run; then it is SIGKILLed (through its pidfd) and this throws. A sanity bound,
///     stretched by ``TestTiming/slowdown``: under emulation a short Python program has been seen to take over
///     30 s beside the other tests' busy apps.
/// - Throws: ``TestKitError`` when it cannot start or runs out of time.
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
  timeout: Duration = .seconds(30 * TestTiming.slowdown)
) throws -> CommandResult {
  let out = try outputPipe(nonblockingRead: true)
  defer { out.read.close() }
  let err = try outputPipe(nonblockingRead: true)
  defer { err.read.close() }
  let program: SpawnedProgram
  do {
    defer {
      // The child has its copies: these must go, or the pipes never reach their end of file.
      out.write.close()
      err.write.close()
    }
    do {
      program = try SpawnedProgram(
        executable, arguments, environment: environment, stdout: out.write, stderr: err.write)
    } catch { throw TestKitError("cannot start \(executable): \(error)") }
  }
  let outputs = [CapturedOutput(out.read), CapturedOutput(err.read)]
  // Both pipes are drained while it runs, so that it never blocks on a full one, until its pidfd says it ended.
  let deadline = ContinuousClock.now.advanced(by: timeout)
  var timedOut = false
  while program.endIfEnded == nil {
    let milliseconds = pollMilliseconds(until: deadline)
    if milliseconds == 0 {
      timedOut = true
      program.signal(SIGKILL)
      break
    }
    var entries = [pollfd(fd: program.pidfd.rawValue, events: Int16(POLLIN), revents: 0)]
    entries += outputs.filter(\.isOpen).map { pollfd(fd: $0.descriptor.rawValue, events: Int16(POLLIN), revents: 0) }
    _ = poll(&entries, nfds_t(entries.count), milliseconds)
    for output in outputs where output.isOpen { output.drain() }
  }
  program.waitForEnd(timeout: nil)
  // What it wrote before it ended is in the pipes now.
  for output in outputs where output.isOpen { output.drain() }
  guard !timedOut else {
    throw TestKitError("\(executable) \(arguments.joined(separator: " ")) timed out after \(timeout.secondsText) s")
  }
  return CommandResult(
    status: program.terminationStatus, stdout: String(decoding: outputs[0].bytes, as: UTF8.self),
    stderr: String(decoding: outputs[1].bytes, as: UTF8.self))
}

/// The bytes read so far from the non-blocking read end of a pipe (which its owner closes).
private final class CapturedOutput {
  let descriptor: FileDescriptor
  private(set) var bytes: [UInt8] = []
  /// Whether the pipe may still hold something (no end of file or error yet).
  private(set) var isOpen = true

  init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

  /// Reads what the pipe holds now, without waiting.
  func drain() {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while isOpen {
      let count = read(descriptor.rawValue, &buffer, buffer.count)
      if count > 0 {
        bytes += buffer[..<count]
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        // EAGAIN: nothing more for now; 0: every writer is gone; anything else: nothing more will come.
        if count == 0 || errno != EAGAIN { isOpen = false }
        return
      }
    }
  }
}
