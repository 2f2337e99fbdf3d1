import Dispatch
import JetsamWire
import Synchronization

/// Requests waiting for their `reply id=R` (or `error … id=R`), matched by id.
final class PendingReplies: Sendable {
  private struct State {
    var nextID = 1
    var waiting: [Int: Slot] = [:]
    var closed = false
  }

  /// Where one request's answer lands.
  final class Slot: Sendable {
    fileprivate let signal = DispatchSemaphore(value: 0)
    fileprivate let result = Mutex<Result<AppLine, JetsamClientError>?>(nil)
  }

  private let state = Mutex(State())

  /// Takes the next request id and a slot for its answer.
  ///
  /// - Returns: The id to put in the request, and the slot to ``wait(for:slot:timeout:)`` on.
  /// - Throws: ``JetsamClientError/channelClosed`` once the channel has closed.
  func register() throws(JetsamClientError) -> (id: Int, slot: Slot) {
    try state.withLock { (state: inout State) throws(JetsamClientError) in
      guard !state.closed else { throw .channelClosed }
      let id = state.nextID
      state.nextID += 1
      let slot = Slot()
      state.waiting[id] = slot
      return (id, slot)
    }
  }

  /// Delivers an answer to the request with this id.
  ///
  /// - Returns: Whether a request was waiting for it (a late answer to a timed-out request is dropped).
  @discardableResult
  func complete(id: Int, with result: Result<AppLine, JetsamClientError>) -> Bool {
    guard let slot = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return false }
    slot.result.withLock { $0 = result }
    slot.signal.signal()
    return true
  }

  /// Fails every waiting request, and all later ones, with ``JetsamClientError/channelClosed``.
  func closeAll() {
    let slots = state.withLock { state in
      state.closed = true
      defer { state.waiting.removeAll() }
      return Array(state.waiting.values)
    }
    for slot in slots {
      slot.result.withLock { $0 = .failure(.channelClosed) }
      slot.signal.signal()
    }
  }

  /// Blocks until the answer arrives or the timeout passes.
  ///
  /// The timeout is counted in short slices of waiting rather than by the clock, so that time the process
  /// spends stopped (jetsam suspends apps with SIGSTOP) does not use it up while the reply sits unread.
  ///
  /// - Parameters:
  ///   - id: The request's id.
  ///   - slot: The slot from ``register()``.
  ///   - timeout: How long to wait while running.
  /// - Returns: The reply line, or the failure.
  func wait(for id: Int, slot: Slot, timeout: Duration) -> Result<AppLine, JetsamClientError> {
    let sliceMilliseconds = 50
    let slices = max(1, Int((timeout / .milliseconds(sliceMilliseconds)).rounded(.up)))
    for _ in 0..<slices {
      if slot.signal.wait(timeout: .now() + .milliseconds(sliceMilliseconds)) == .success {
        return slot.result.withLock { $0 } ?? .failure(.channelClosed)
      }
    }
    let stillWaiting = state.withLock { $0.waiting.removeValue(forKey: id) != nil }
    if !stillWaiting {
      // The answer was delivered between the last slice and now; its signal is on its way.
      slot.signal.wait()
      return slot.result.withLock { $0 } ?? .failure(.channelClosed)
    }
    return .failure(.replyTimedOut(request: "request \(id)"))
  }
}
