import CJetsamShim
import Glibc
import JetsamPlatform
import JetsamSpawning
import JetsamWire

/// A non-blocking, newline-delimited byte stream on a socket, watched by the event loop: the control
/// socket's connections and the apps' channels both speak through one.
///
/// Both directions are bounded. Input is cut by a ``LineFramer``: a line longer than `maxLineBytes` (newline
/// included) is reported once as `.tooLong` and its bytes are dropped as they arrive, never accumulated; output
/// waiting for a peer that does not read is capped at `maxQueuedOutput`, past which the stream closes itself
/// (`onOverflow` says so) rather than grow; its owner may also hold it to a shared budget (`onQueuedOutput` reports
/// every change) and drop it with ``finish(lastLine:)``. Before that, a peer that leaves ``backlogBytes`` of output
/// unread is not served: nothing more of its input is read or handed over until it reads, so a client that writes
/// requests and never reads the answers costs the daemon one backlog, not its whole stream of answers.
///
/// Fair to everyone else on the loop: each turn reads at most ``chunkBytes`` and hands over at most
/// ``linesPerTurn`` lines (``greedyLinesPerTurn`` while it floods), then yields (lines already read wait for the
/// next turn, and nothing more is read until they are handled: the rest stays in the kernel's socket buffer).
/// Its sources run at ``EventPriority/peer``, after every kernel source; a peer with more lines waiting than one
/// turn's share drops to ``EventPriority/greedyPeer`` until it has none, so that peers asking little go first. A
/// peer that never stops writing gets its turns, not the loop, and not another peer's.
final class LineStream {
  /// Bytes read per turn.
  static let chunkBytes = 16 * 1024
  /// Lines handed over per turn.
  static let linesPerTurn = 32
  /// Lines handed over per turn while the peer is greedy: a request that arrives meanwhile from a peer asking
  /// little waits for at most one such turn (8 status answers: well under a millisecond, where 32 took 3).
  static let greedyLinesPerTurn = 8
  /// Unread output past which the peer's input waits (in the kernel's socket buffer) until it reads.
  static let backlogBytes = 64 * 1024
  /// How long a dropped peer has to read its last line (``finish(lastLine:)``) before it is closed anyway.
  static let lastLineTimeout: Duration = .seconds(5)

  /// One line, without its newline, or `.tooLong` for a line that was skipped.
  typealias Input = LineFramer.Output

  let fd: FileDescriptor
  private let maxQueuedOutput: Int
  private var source: EventSource?
  private var framer: LineFramer
  private var output = OutputQueue()
  private(set) var closed = false
  /// While paused, lines already read wait here and nothing more is read: the peer's further input stays in the
  /// kernel's socket buffer (backpressure), never in ours beyond one read.
  private(set) var paused = false
  /// Lines read and not yet handed over (while paused, or past this turn's share); ``nextWaitingLine`` is the
  /// first of them.
  private var waitingLines: [Input] = []
  private var nextWaitingLine = 0
  /// Runs the next turn for lines already read (no socket event would come for them).
  private var nextTurn: EventSource?
  private let loop: EventLoop
  private let onInput: (Input) -> Void
  /// Called when the stream closed itself because too much output waited.
  var onOverflow: (() -> Void)?
  /// Called with the bytes of output the peer has not read yet, whenever that changes.
  var onQueuedOutput: ((Int) -> Void)?
  /// Set by ``finish(lastLine:)``: nothing more is read or sent, and the stream closes once its last line is out.
  private var finishing: EventSource?
  /// Output the peer has not read yet.
  var queuedOutputBytes: Int { output.count }
  /// Whether the peer leaves so much output unread that it is not served.
  private var isBackedUp: Bool { output.count > LineStream.backlogBytes }
  /// Called once when the stream is closed (by the peer, an error, overflow or ``close()``).
  var onClose: (() -> Void)?

  /// Watches `fd` (which must be non-blocking) and calls `onInput` for every line that arrives.
  init(
    fd: FileDescriptor, loop: EventLoop, maxLineBytes: Int, maxQueuedOutput: Int,
    onInput: @escaping (Input) -> Void
  ) throws {
    self.fd = fd
    self.loop = loop
    framer = LineFramer(maxBytes: maxLineBytes)
    self.maxQueuedOutput = maxQueuedOutput
    self.onInput = onInput
    // Weak, and held for the whole handler: a failed write closes the stream, whose owner may then let go of it
    // (a control connection whose peer hung up) before the handler reads `paused` (an unowned reference would
    // trap there).
    source = try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [weak self] events in
      guard let self else { return }
      if events & EpollEvents.writable != 0 { self.flush() }
      if !self.paused && !self.hasWaitingLines && !self.isBackedUp && self.finishing == nil
        && events & (EpollEvents.readable | EpollEvents.hangUp | EpollEvents.error) != 0
      {
        self.readOnce()
      }
    }
    source?.setPriority(.peer)
  }

  private var hasWaitingLines: Bool { nextWaitingLine < waitingLines.count }
  /// Whether it had more lines than one turn's share at its last turn (see ``EventPriority/greedyPeer``).
  private var greedy = false

  private func setGreedy(_ value: Bool) {
    guard value != greedy else { return }
    greedy = value
    let priority: EventPriority = value ? .greedyPeer : .peer
    source?.setPriority(priority)
    nextTurn?.setPriority(priority)
  }

  /// Stops handing over lines (the one being handled is answered later); lines already read wait.
  func pauseReading() {
    guard !paused else { return }
    paused = true
    updateEvents()
  }

  /// Hands over the lines that waited at the loop's next turn, then reads on.
  ///
  /// Never at once: a reply is often sent from inside the handling of something else (another client's request
  /// that released a balloon, a policy run), and the next line handled there would run inside it.
  func resumeReading() {
    guard paused, !closed else { return }
    paused = false
    if hasWaitingLines && !isBackedUp { scheduleNextTurn() }
    updateEvents()
  }

  /// Queues one line (a newline is added) and writes what the socket takes now.
  func send(_ line: some Collection<UInt8>) {
    guard !closed, finishing == nil else { return }
    output.append(line: line)
    if output.count > maxQueuedOutput {
      onOverflow?()
      close()
      return
    }
    flush()
  }

  /// Drops the peer: the output it has not read is discarded (but for the rest of a line it has the beginning of),
  /// `lastLine` says why, and the stream closes once that is written, or after ``lastLineTimeout`` (a peer that
  /// never reads never gets it). Nothing more is read or sent meanwhile.
  func finish(lastLine: some Collection<UInt8>) {
    guard !closed, finishing == nil else { return }
    output.discardAllButCurrentLine()
    output.append(line: lastLine)
    waitingLines = []
    nextWaitingLine = 0
    nextTurn?.cancel()
    nextTurn = nil
    finishing = try? loop.timer(at: MonotonicClock.now().advanced(by: LineStream.lastLineTimeout)) {
      [weak self] in self?.close()
    }
    // No timer (out of memory): closed now rather than held open for good.
    guard finishing != nil else { return close() }
    flush()
  }

  func close() {
    guard !closed else { return }
    closed = true
    source?.cancel()
    source = nil
    nextTurn?.cancel()
    nextTurn = nil
    finishing?.cancel()
    finishing = nil
    output.removeAll()
    fd.close()
    onClose?()
  }

  private func flush() {
    let wasBackedUp = isBackedUp
    defer {
      // The peer read its backlog: serve the lines that waited for it.
      if wasBackedUp && !isBackedUp && !closed && !paused && hasWaitingLines { scheduleNextTurn() }
    }
    while !output.isEmpty && !closed {
      guard let n = output.withNextBytes({ jetsam_send_nonblocking(fd.rawValue, $0.baseAddress, $0.count) }) else {
        break
      }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { break }
        close()
        return
      }
      output.consume(n)
    }
    if finishing != nil && output.isEmpty { return close() }
    if !closed { onQueuedOutput?(output.count) }
    updateEvents()
  }

  /// Readable unless paused or lines read earlier still wait (epoll is level-triggered: input that arrived
  /// meanwhile wakes it at once afterwards); writable while output waits.
  private func updateEvents() {
    let reading = !paused && !hasWaitingLines && !isBackedUp && finishing == nil
    source?.setIOEvents((reading ? EpollEvents.readable : 0) | (output.isEmpty ? 0 : EpollEvents.writable))
  }

  /// One read of at most ``chunkBytes``, then this turn's share of its lines.
  private func readOnce() {
    let lines: [Input]? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: LineStream.chunkBytes) { chunk in
      while true {
        let n = Glibc.read(fd.rawValue, chunk.baseAddress, chunk.count)
        if n < 0 && errno == EINTR { continue }
        if n < 0 {
          if errno != EAGAIN { return nil }
          return []
        }
        // n == 0: the peer closed its end, nothing more will come.
        return n == 0 ? nil : framer.append(UnsafeBufferPointer(rebasing: chunk[..<n]))
      }
    }
    guard let lines else { return close() }
    waitingLines += lines
    handOver()
  }

  /// Hands over up to ``linesPerTurn`` waiting lines; if more wait, another turn comes after the loop has served
  /// the other sources.
  private func handOver() {
    var handed = 0
    let share = greedy ? LineStream.greedyLinesPerTurn : LineStream.linesPerTurn
    while !paused && !closed && !isBackedUp && hasWaitingLines && handed < share {
      let input = waitingLines[nextWaitingLine]
      nextWaitingLine += 1
      handed += 1
      // A handler may close the stream (lines after that have nobody to answer them) or pause it.
      onInput(input)
    }
    guard !closed else { return }
    setGreedy(hasWaitingLines)
    if !hasWaitingLines {
      waitingLines.removeAll(keepingCapacity: waitingLines.count <= 64)
      nextWaitingLine = 0
    } else if !paused && !isBackedUp {
      scheduleNextTurn()
    }
    updateEvents()
  }

  private func scheduleNextTurn() {
    if nextTurn == nil {
      nextTurn = try? loop.timer(at: nil) { [unowned self] in self.handOver() }
      nextTurn?.setPriority(greedy ? .greedyPeer : .peer)
    }
    nextTurn?.schedule(at: MonotonicClock.now())
  }
}
