import Dispatch
import Synchronization

/// Events on their way from the reader thread to whoever runs the app's event loop.
final class EventQueue: Sendable {
  private struct State {
    var events: [JetsamEvent] = []
    var closed = false
  }

  private let state = Mutex(State())
  // One permit per queued event, plus one once closed.
  private let available = DispatchSemaphore(value: 0)

  /// Queues an event.
  func push(_ event: JetsamEvent) {
    state.withLock { $0.events.append(event) }
    available.signal()
  }

  /// Marks the end: ``pop()`` returns the events still queued, then `nil`.
  func close() {
    let wasOpen = state.withLock { state in
      defer { state.closed = true }
      return !state.closed
    }
    if wasOpen { available.signal() }
  }

  /// Takes the next event, blocking until there is one.
  ///
  /// - Returns: The next event, or `nil` once the queue is closed and drained.
  func pop() -> JetsamEvent? {
    while true {
      available.wait()
      enum Next {
        case event(JetsamEvent)
        case end
        case retry
      }
      let next: Next = state.withLock { state in
        if !state.events.isEmpty { return .event(state.events.removeFirst()) }
        return state.closed ? .end : .retry
      }
      switch next {
      case .event(let event): return event
      case .end:
        // Leave the end permit for any other waiter.
        available.signal()
        return nil
      case .retry: continue
      }
    }
  }
}
