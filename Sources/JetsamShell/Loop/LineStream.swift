import Glibc

/// A non-blocking, newline-delimited byte stream on a socket, watched by the event loop: the control
/// socket's connections and the apps' channels both speak through one.
///
/// Both directions are bounded. Input is cut by a ``LineFramer``: a line longer than `maxLineBytes` (newline
/// included) is reported once as `.tooLong` and its bytes are dropped as they arrive, never accumulated; output
/// waiting for a peer that does not read is capped at `maxQueuedOutput`, past which the stream closes itself
/// (`onOverflow` says so) rather than grow.
final class LineStream {
  /// One line, without its newline, or `.tooLong` for a line that was skipped.
  typealias Input = LineFramer.Output

  let fd: FileDescriptor
  private let maxQueuedOutput: Int
  private var source: EventSource?
  private var framer: LineFramer
  private var output: [UInt8] = []
  private(set) var closed = false
  /// While paused, lines already read wait here and nothing more is read: the peer's further input stays in the
  /// kernel's socket buffer (backpressure), never in ours beyond one read.
  private(set) var paused = false
  private var waitingLines: [Input] = []
  private let onInput: (Input) -> Void
  /// Called when the stream closed itself because too much output waited.
  var onOverflow: (() -> Void)?
  /// Called once when the stream is closed (by the peer, an error, overflow or ``close()``).
  var onClose: (() -> Void)?

  /// Watches `fd` (which must be non-blocking) and calls `onInput` for every line that arrives.
  init(
    fd: FileDescriptor, loop: EventLoop, maxLineBytes: Int, maxQueuedOutput: Int,
    onInput: @escaping (Input) -> Void
  ) throws {
    self.fd = fd
    framer = LineFramer(maxBytes: maxLineBytes)
    self.maxQueuedOutput = maxQueuedOutput
    self.onInput = onInput
    source = try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [unowned self] events in
      if events & EpollEvents.writable != 0 { self.flush() }
      if !self.paused && events & (EpollEvents.readable | EpollEvents.hangUp | EpollEvents.error) != 0 {
        self.readAvailable()
      }
    }
  }

  /// Stops handing over lines (the one being handled is answered later); lines already read wait.
  func pauseReading() {
    guard !paused else { return }
    paused = true
    updateEvents()
  }

  /// Hands over the lines that waited, then reads on.
  func resumeReading() {
    guard paused, !closed else { return }
    paused = false
    while !paused && !closed && !waitingLines.isEmpty { onInput(waitingLines.removeFirst()) }
    updateEvents()
  }

  /// Queues one line (a newline is added) and writes what the socket takes now.
  func send(_ line: some Sequence<UInt8>) {
    guard !closed else { return }
    output += line
    output.append(UInt8(ascii: "\n"))
    if output.count > maxQueuedOutput {
      onOverflow?()
      close()
      return
    }
    flush()
  }

  func close() {
    guard !closed else { return }
    closed = true
    source?.cancel()
    source = nil
    fd.close()
    onClose?()
  }

  private func flush() {
    while !output.isEmpty && !closed {
      let n = output.withUnsafeBytes { Glibc.send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { break }
        close()
        return
      }
      output.removeFirst(n)
    }
    updateEvents()
  }

  /// Readable unless paused (epoll is level-triggered: input that arrived meanwhile wakes it at once on
  /// resuming); writable while output waits.
  private func updateEvents() {
    source?.setIOEvents((paused ? 0 : EpollEvents.readable) | (output.isEmpty ? 0 : EpollEvents.writable))
  }

  private func readAvailable() {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !closed && !paused {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno != EAGAIN { close() }
        return
      }
      if n == 0 {
        // The peer closed its end: nothing more will come.
        close()
        return
      }
      for input in framer.append(chunk[0..<n]) {
        // A handler may close the stream (lines after that have nobody to answer them) or pause it.
        if closed { return }
        if paused {
          waitingLines.append(input)
        } else {
          onInput(input)
        }
      }
    }
  }
}
