import Foundation
import Glibc

/// The lines a child process writes into a pipe, each stamped with the CLOCK_MONOTONIC time the bench read it.
///
/// A dedicated thread blocks in read(2) on the pipe, so a line is stamped within tens of microseconds of being
/// written: this is how the bench times earlyoom's `sending SIGKILL to process N …` (written right before its
/// kill(2)) and jetsamd's pressure level changes.
public final class LineLog: @unchecked Sendable {
  /// One line and when it arrived.
  public struct Line: Sendable {
    /// When the reader read it, on ``MonotonicTime``.
    public let time: UInt64
    /// The line without its newline.
    public let text: String
  }

  /// Guards the lines; signalled when the writer closes the pipe.
  private let lock = NSCondition()
  private var lines: [Line] = []
  private var partial: [UInt8] = []
  private var finished = false

  /// Starts reading `fd` (which this log then owns and closes at end of file).
  ///
  /// - Parameter realTime: read at ``ObserverPriority`` (the bench's timings), not at normal priority (tests).
  public init(readingFrom fd: Int32, realTime: Bool = false) {
    Thread.detachNewThread { [self] in
      if realTime { ObserverPriority.promoteCurrentThread() }
      readLoop(fd)
    }
  }

  private func readLoop(_ fd: Int32) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      let now = MonotonicTime.now()
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      lock.lock()
      partial += buffer[0..<n]
      while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(Line(time: now, text: String(decoding: partial[..<newline], as: UTF8.self)))
        partial.removeSubrange(...newline)
      }
      lock.unlock()
    }
    close(fd)
    lock.lock()
    if !partial.isEmpty {
      lines.append(Line(time: MonotonicTime.now(), text: String(decoding: partial, as: UTF8.self)))
    }
    partial = []
    finished = true
    lock.broadcast()
    lock.unlock()
  }

  /// Every line so far.
  public var all: [Line] {
    lock.lock()
    defer { lock.unlock() }
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

  /// Waits until the writer has closed the pipe and every line is in, or `deadline` passes; whether it has.
  ///
  /// A process's end comes before the reader's end of file: who reads its output once it has ended waits here.
  @discardableResult
  public func waitUntilFinished(before deadline: Date) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    while !finished {
      if !lock.wait(until: deadline) { return finished }
    }
    return true
  }

  /// The first line read at or after `time` that satisfies `matches`.
  public func first(after time: UInt64 = 0, where matches: (String) -> Bool) -> Line? {
    lock.lock()
    defer { lock.unlock() }
    return lines.first { $0.time >= time && matches($0.text) }
  }
}
