import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning

/// One connection to the metrics listener, served on the loop without ever blocking it: it reads one request head
/// (at most ``HTTPRequestHead/maxBytes``), answers it, and closes.
///
/// Every stage is bounded in time and space, so that a client that connects and sends nothing, sends slowly, or
/// never reads costs one descriptor and a few kilobytes for a few seconds: the head must come within
/// ``readTimeout`` (else 408), the answer be taken within ``writeTimeout``. Once written, the sending side is shut
/// and what the client still sends is read and dropped until it closes (for at most ``lingerTimeout``): closing
/// with unread input would reset the connection, and the client could lose the end of its answer. The answer waiting
/// to be taken is held to the daemon's ``OutputBudget``, which closes the connection if it must.
final class HTTPConnection: OutputHolder {
  /// How long the client has to send its request head.
  static let readTimeout: Duration = .seconds(5)
  /// How long it has to take the whole answer (a fleet's exposition is a few hundred kilobytes).
  static let writeTimeout: Duration = .seconds(30)
  /// How long its further input is read and dropped after the answer, before the connection is closed anyway.
  static let lingerTimeout: Duration = .seconds(2)
  /// Input dropped after the answer, at most, before the connection is closed anyway.
  static let lingerBytes = 64 * 1024

  private enum Stage {
    case reading
    case writing
    case lingering
  }

  private let fd: FileDescriptor
  private var source: EventSource?
  private var deadline: EventSource?
  private var stage = Stage.reading
  private var input: [UInt8] = []
  private var output: [UInt8] = []
  private var written = 0
  private var dropped = 0
  private let respond: (HTTPRequestHead) -> HTTPResponse
  private let budget: OutputBudget
  /// Its place in the order the listener accepted connections: of those still sending their head, the oldest gives
  /// way first.
  let serial: Int
  /// Called once, when the connection is closed.
  var onClose: (() -> Void)?

  /// Serves `fd` (non-blocking, accepted as the listener's `serial`th): `respond` answers its request, held to
  /// `budget` until taken.
  init(
    fd: FileDescriptor, serial: Int, loop: EventLoop, budget: OutputBudget,
    respond: @escaping (HTTPRequestHead) -> HTTPResponse
  ) throws(SystemError) {
    self.fd = fd
    self.serial = serial
    self.budget = budget
    self.respond = respond
    source = try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [weak self] events in
      self?.handle(events)
    }
    source?.setPriority(.peer)
    deadline = try loop.timer(at: MonotonicClock.now().advanced(by: Self.readTimeout)) { [weak self] in
      self?.timedOut()
    }
    deadline?.setPriority(.peer)
  }

  /// Answers `response` now (a refusal before any request was read: too many connections).
  func answer(_ response: HTTPResponse) {
    guard stage == .reading else { return }
    send(response)
  }

  /// Whether it has not sent a whole request head yet.
  var awaitingHead: Bool { stage == .reading }

  var clientDescription: String { "metrics client" }

  /// Dropped by the budget: closed, as HTTP has no line to say why.
  func evict(because reason: String) { close() }

  func close() {
    guard source != nil else { return }
    source?.cancel()
    source = nil
    deadline?.cancel()
    deadline = nil
    output = []
    budget.release(self)
    fd.close()
    onClose?()
  }

  private func handle(_ events: UInt32) {
    switch stage {
    case .reading: readHead()
    case .writing: if events & (EpollEvents.writable | EpollEvents.error | EpollEvents.hangUp) != 0 { flush() }
    case .lingering: drain()
    }
  }

  private func readHead() {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let n = chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, min($0.count, room)) }
    if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
    // Gone (or failed) before its request was whole: nobody to answer.
    guard n > 0 else { return close() }
    input += chunk[..<n]
    switch HTTPRequestHead.parse(input) {
    case .incomplete: return
    case .request(let head): send(respond(head))
    case .refused(let status, let reason): send(.refusal(status, reason))
    }
  }

  /// Bytes still to read before the head is too large to take (one more than the limit, so that the parse sees
  /// it is over).
  private var room: Int { max(1, HTTPRequestHead.maxBytes + 1 - input.count) }

  private func timedOut() {
    switch stage {
    case .reading: send(.refusal(.requestTimeout, "no whole request within \(Self.readTimeout)"))
    case .writing, .lingering: close()
    }
  }

  private func send(_ response: HTTPResponse) {
    input = []
    output = response.bytes
    stage = .writing
    deadline?.schedule(at: MonotonicClock.now().advanced(by: Self.writeTimeout))
    budget.update(self, owes: output.count)
    // Dropped by the budget (an answer past a client's share, or the largest while all were owed too much).
    guard source != nil else { return }
    flush()
  }

  private func flush() {
    while written < output.count {
      let n = output[written...].withUnsafeBytes { jetsam_send_nonblocking(fd.rawValue, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 && errno == EAGAIN {
        source?.setIOEvents(EpollEvents.writable)
        return
      }
      guard n > 0 else { return close() }
      written += n
    }
    // All sent: no more to say, and what the client still sends is dropped until it closes.
    shutdown(fd.rawValue, Int32(SHUT_WR))
    output = []
    budget.release(self)
    stage = .lingering
    deadline?.schedule(at: MonotonicClock.now().advanced(by: Self.lingerTimeout))
    source?.setIOEvents(EpollEvents.readable)
  }

  private func drain() {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let n = chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
    if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
    dropped += max(n, 0)
    if n <= 0 || dropped > Self.lingerBytes { close() }
  }
}
