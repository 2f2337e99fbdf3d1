import Foundation
import Glibc

/// The lines a child process writes into a pipe, each stamped with the CLOCK_MONOTONIC time the bench read it.
///
/// A dedicated thread waits in poll(2) on the pipe and reads it as soon as it turns readable, so a line is stamped
/// within tens of microseconds of being written: this is how the bench times earlyoom's `sending SIGKILL to process
/// N …` (written right before its kill(2)) and jetsamd's pressure level changes.
public final class LineLog: @unchecked Sendable {
  /// One line and when it arrived.
  public struct Line: Sendable {
    /// When the reader read it, on ``MonotonicTime``.
    public let time: UInt64
    /// The line without its newline.
    public let text: String
  }

  /// Guards the lines and every read of the pipe.
  private let lock = NSLock()
  private let fd: Int32
  private var lines: [Line] = []
  private var partial: [UInt8] = []
  private var finished = false
  private var buffer = [UInt8](repeating: 0, count: 65536)

  /// Starts reading `fd` (which this log then owns and closes at end of file).
  ///
  /// - Parameter realTime: read at ``ObserverPriority`` (the bench's timings), not at normal priority (tests).
  public init(readingFrom fd: Int32, realTime: Bool = false) {
    self.fd = fd
    // Non-blocking: reads happen under the lock (by the reader thread, or by whoever asks for the lines), never
    // waiting.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    Thread.detachNewThread { [self] in
      if realTime { ObserverPriority.promoteCurrentThread() }
      readLoop()
    }
  }

  private func readLoop() {
    while true {
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&entry, 1, -1) < 0 && errno == EINTR { continue }
      lock.lock()
      let ended = readAvailable()
      if ended {
        close(fd)
        if !partial.isEmpty {
          lines.append(Line(time: MonotonicTime.now(), text: String(decoding: partial, as: UTF8.self)))
        }
        partial = []
        finished = true
      }
      lock.unlock()
      if ended { return }
    }
  }

  /// Reads what the pipe holds now into lines (called with the lock held); true at its end of file (or an error).
  private func readAvailable() -> Bool {
    while true {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      let now = MonotonicTime.now()
      if n < 0 && errno == EINTR { continue }
      if n < 0 && errno == EAGAIN { return false }
      if n <= 0 { return true }
      partial += buffer[0..<n]
      while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(Line(time: now, text: String(decoding: partial[..<newline], as: UTF8.self)))
        partial.removeSubrange(...newline)
      }
    }
  }

  /// Takes into the log, now, everything written to the pipe so far, without waiting for more (called with the lock
  /// held): whoever reads the log sees every line written before it asked, even when the writer has just ended and
  /// the reader thread has not read the pipe yet.
  private func takeWhatIsWritten() {
    // Its end of file is left to the reader thread, which closes the pipe.
    if !finished { _ = readAvailable() }
  }

  /// Every line written so far.
  public var all: [Line] {
    lock.lock()
    defer { lock.unlock() }
    takeWhatIsWritten()
    return lines
  }

  /// The whole text so far.
  public var text: String { all.map(\.text).joined(separator: "\n") }

  /// Whether the writer closed the pipe (the process ended).
  public var isFinished: Bool {
    lock.lock()
    defer { lock.unlock() }
    return finished
  }

  /// The first line read at or after `time` that satisfies `matches`.
  public func first(after time: UInt64 = 0, where matches: (String) -> Bool) -> Line? {
    lock.lock()
    defer { lock.unlock() }
    takeWhatIsWritten()
    return lines.first { $0.time >= time && matches($0.text) }
  }
}
