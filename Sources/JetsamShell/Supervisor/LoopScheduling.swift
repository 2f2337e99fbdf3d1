import JetsamCore
import JetsamPlatform
import JetsamValues

/// What the supervisor needs of the event loop: watch a descriptor, arm a timer, read the clock. The daemon
/// hands it the real ``EventLoop``; unit tests hand it a fake whose time they move by hand.
public protocol LoopScheduling: AnyObject {
  /// Calls `handler` with the ready epoll events whenever `fd` is ready for `events`.
  func addWatch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws -> any LoopSource
  /// A one-shot timer armed at `deadline` (disarmed when nil); re-arm it with ``LoopSource/schedule(at:)``.
  func addTimer(at deadline: Instant?, handler: @escaping () -> Void) throws -> any LoopSource
  /// A source that calls `handler` once in the loop's next turn each time it is armed: work that all the results of
  /// one dispatch share is then done once for all of them.
  func addNextTurn(handler: @escaping () -> Void) throws -> any LoopTurnSource
  /// The current instant on the loop's clock (CLOCK_MONOTONIC for the real loop).
  func now() -> Instant
}

/// A source of ``LoopScheduling/addNextTurn(handler:)``.
public protocol LoopTurnSource: AnyObject {
  /// Has the handler run once in the loop's next turn.
  func arm()
}

/// One watch or timer of a ``LoopScheduling``.
public protocol LoopSource: AnyObject {
  /// Arms a timer for `deadline`, or disarms it with nil.
  func schedule(at deadline: Instant?)
  /// Stops the source for good.
  func cancel()
}

extension EventLoop: LoopScheduling {
  public func addWatch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws -> any LoopSource {
    try watch(fd: fd, events: events, handler: handler)
  }

  public func addTimer(at deadline: Instant?, handler: @escaping () -> Void) throws -> any LoopSource {
    try timer(at: deadline, handler: handler)
  }

  public func addNextTurn(handler: @escaping () -> Void) throws -> any LoopTurnSource {
    try nextTurn(handler: handler)
  }

  public func now() -> Instant { MonotonicClock.now() }
}

extension EventSource: LoopSource, LoopTurnSource {}
