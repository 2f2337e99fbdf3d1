import JetsamValues

/// The lifecycle events delivered to one process and what it has acknowledged of them.
struct AppChannelBook: Sendable {
  /// Whether the app speaks the protocol, so that its acknowledgements are watched.
  var speaksProtocol = false
  /// The id the next lifecycle event gets.
  var nextEventID = 1
  /// Events sent and not yet acknowledged, by id; those with a deadline are watched.
  var pendingAcks: [Int: PendingAck] = [:]
  /// The willTerminate event whose acknowledgement (or deadline) lets the SIGTERM go out.
  var terminateAfterEvent: Int?

  /// Whether a handler the app is in is watched (its acknowledgement has a deadline).
  var awaitsWatchedHandler: Bool { pendingAcks.values.contains { $0.deadline != nil } }

  /// Numbers the next event.
  mutating func takeEventID() -> Int {
    defer { nextEventID += 1 }
    return nextEventID
  }

  /// Starts the watchdog of the first watched event not acknowledged yet, if it is not running: the app's handler
  /// for it runs now (the handlers of the events before it have returned).
  mutating func startWatchdog(at: Instant) {
    let watched = pendingAcks.filter { !$0.value.waived && ($0.value.answeredByHook || speaksProtocol) }
    guard let first = watched.min(by: { $0.key < $1.key }), first.value.since == nil else { return }
    pendingAcks[first.key]?.since = at
  }

  /// Stops watching every event not acknowledged yet (a late acknowledgement is still taken).
  mutating func waiveAll() {
    for id in pendingAcks.keys {
      pendingAcks[id]?.waived = true
      pendingAcks[id]?.since = nil
      pendingAcks[id]?.heldBy = nil
      pendingAcks[id]?.askedForTracer = false
    }
  }
}
