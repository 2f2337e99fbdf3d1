import CSystemd
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues

/// The daemon's one event loop (sd-event): every kernel source feeds it and every handler runs on its thread,
/// so the policy's state needs no lock.
///
/// sd-event also sends the systemd watchdog keep-alive from inside the loop (`sd_event_set_watchdog`), so a
/// stuck loop really stops the pings.
public final class EventLoop {
  let event: OpaquePointer

  /// Creates a loop. Signals to watch with ``onSignal(_:handler:)`` must already be blocked in every thread.
  public init() throws(SystemError) {
    var e: OpaquePointer?
    let r = sd_event_new(&e)
    guard r >= 0, let e else { throw SystemError(code: -r, "sd_event_new") }
    event = e
  }

  deinit { sd_event_unref(event) }

  /// Calls `handler` with the returned epoll events whenever `fd` is ready for `events` (EPOLLIN, EPOLLPRI…).
  public func watch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError)
    -> EventSource
  {
    let box = EventSource.Callbacks(io: handler)
    var source: OpaquePointer?
    let r = sd_event_add_io(
      event, &source, fd, events,
      { _, _, revents, userdata in
        // Held for the whole call: a handler may cancel its own source, which releases the box.
        let box = Unmanaged<EventSource.Callbacks>.fromOpaque(userdata!).takeUnretainedValue()
        withExtendedLifetime(box) { box.io?(revents) }
        return 0
      }, Unmanaged.passUnretained(box).toOpaque())
    guard r >= 0, let source else { throw SystemError(code: -r, "sd_event_add_io fd \(fd)") }
    return EventSource(source: source, callbacks: box)
  }

  /// A one-shot timer on CLOCK_MONOTONIC, armed at `deadline` (or disarmed when nil); re-arm with
  /// ``EventSource/schedule(at:)``. Accuracy is 1 µs: sd-event's default slack is 250 ms.
  public func timer(at deadline: Instant?, handler: @escaping () -> Void) throws(SystemError) -> EventSource {
    let box = EventSource.Callbacks(fire: handler)
    var source: OpaquePointer?
    let r = sd_event_add_time(
      event, &source, CLOCK_MONOTONIC, UInt64.max, 1,
      { _, _, userdata in
        let box = Unmanaged<EventSource.Callbacks>.fromOpaque(userdata!).takeUnretainedValue()
        withExtendedLifetime(box) { box.fire?() }
        return 0
      }, Unmanaged.passUnretained(box).toOpaque())
    guard r >= 0, let source else { throw SystemError(code: -r, "sd_event_add_time") }
    let timer = EventSource(source: source, callbacks: box)
    timer.schedule(at: deadline)
    return timer
  }

  /// Calls `handler` once in the loop's next turn each time the returned source is armed (``EventSource/arm()``),
  /// before the sources that were pending already: what everything one dispatch did needs only once (the policy
  /// loop's deadline and status after a background queue handed back a thousand results) is done once. An
  /// sd-event defer source, off until armed.
  public func nextTurn(handler: @escaping () -> Void) throws(SystemError) -> EventSource {
    let box = EventSource.Callbacks(fire: handler)
    var source: OpaquePointer?
    let r = sd_event_add_defer(
      event, &source,
      { _, userdata in
        let box = Unmanaged<EventSource.Callbacks>.fromOpaque(userdata!).takeUnretainedValue()
        withExtendedLifetime(box) { box.fire?() }
        return 0
      }, Unmanaged.passUnretained(box).toOpaque())
    guard r >= 0, let source else { throw SystemError(code: -r, "sd_event_add_defer") }
    _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    return EventSource(source: source, callbacks: box)
  }

  /// Calls `handler` when `signal` arrives (through a signalfd; the signal must be blocked already).
  public func onSignal(_ signal: Signal, handler: @escaping () -> Void) throws(SystemError) -> EventSource {
    try onSignal(signal) { _ in handler() }
  }

  /// Calls `handler` with the signal's `si_code` (for SIGCHLD: `CLD_EXITED`, `CLD_STOPPED`, `CLD_CONTINUED`…) when
  /// `signal` arrives. A signal that arrives while one is pending is merged into it: the code is the first's.
  public func onSignal(_ signal: Signal, code handler: @escaping (Int32) -> Void) throws(SystemError) -> EventSource {
    let box = EventSource.Callbacks(signal: handler)
    var source: OpaquePointer?
    let r = sd_event_add_signal(
      event, &source, signal.rawValue,
      { _, info, userdata in
        let box = Unmanaged<EventSource.Callbacks>.fromOpaque(userdata!).takeUnretainedValue()
        let code = info?.pointee.ssi_code ?? 0
        withExtendedLifetime(box) { box.signal?(code) }
        return 0
      }, Unmanaged.passUnretained(box).toOpaque())
    guard r >= 0, let source else { throw SystemError(code: -r, "sd_event_add_signal \(signal)") }
    return EventSource(source: source, callbacks: box)
  }

  /// Sends systemd's WATCHDOG=1 from the loop itself at half of WATCHDOG_USEC, if the service has a watchdog.
  public func enableWatchdog() {
    _ = sd_event_set_watchdog(event, 1)
  }

  /// Runs until ``exit(code:)``; returns the exit code.
  public func run() throws(SystemError) -> Int32 {
    let r = sd_event_loop(event)
    if r < 0 { throw SystemError(code: -r, "sd_event_loop") }
    return r
  }

  /// Makes ``run()`` return `code` after the current iteration.
  public func exit(code: Int32) {
    _ = sd_event_exit(event, code)
  }
}

/// The order in which pending sources are served. Kernel sources (pressure, exits, timers, signals) keep the
/// default; peers (control clients and app channels, whose input anyone can make endless) come after them, so
/// that no client or app can delay a kill or a record.
public enum EventPriority: Int64 {
  case kernel = 0
  case peer = 50
  /// A peer with more input than one turn's share (a flood): served after every peer that asks little, so that
  /// a client sending one request at a time never waits behind a round of floods.
  case greedyPeer = 60
}

/// One registered source of an ``EventLoop``; cancel it to stop watching (its callback is then released).
public final class EventSource {
  final class Callbacks {
    let io: ((UInt32) -> Void)?
    let fire: (() -> Void)?
    /// A signal's `si_code`.
    let signal: ((Int32) -> Void)?
    init(io: ((UInt32) -> Void)? = nil, fire: (() -> Void)? = nil, signal: ((Int32) -> Void)? = nil) {
      self.io = io
      self.fire = fire
      self.signal = signal
    }
  }

  private var source: OpaquePointer?
  // Held here because sd-event keeps only an unretained pointer to it as userdata.
  private var callbacks: Callbacks?

  init(source: OpaquePointer, callbacks: Callbacks) {
    self.source = source
    self.callbacks = callbacks
  }

  deinit { cancel() }

  /// Arms a timer source for `deadline`, or disarms it with nil.
  public func schedule(at deadline: Instant?) {
    guard let source else { return }
    if let deadline {
      _ = sd_event_source_set_time(source, MonotonicClock.microseconds(deadline))
      _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    } else {
      _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    }
  }

  /// Has a ``EventLoop/nextTurn(handler:)`` source run once in the loop's next turn (sd-event turns it off as it
  /// dispatches it, so arming it from its own handler runs it again in the turn after).
  public func arm() {
    guard let source else { return }
    _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
  }

  /// Sets which pending sources sd-event dispatches first (it dispatches one source per iteration, the most
  /// important pending one).
  public func setPriority(_ priority: EventPriority) {
    guard let source else { return }
    _ = sd_event_source_set_priority(source, priority.rawValue)
  }

  /// Changes which epoll events an io source waits for (e.g. adds EPOLLOUT while output is queued); with none, the
  /// source is switched off, as the kernel reports a hang-up whatever the mask (a paused stream whose peer hung up
  /// would otherwise wake the loop on every iteration).
  public func setIOEvents(_ events: UInt32) {
    guard let source else { return }
    if events == 0 {
      _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    } else {
      _ = sd_event_source_set_io_events(source, events)
      _ = sd_event_source_set_enabled(source, Int32(SD_EVENT_ON))
    }
  }

  /// Stops the source for good.
  public func cancel() {
    if let source { sd_event_source_disable_unref(source) }
    source = nil
    callbacks = nil
  }
}

extension MonotonicClock {
  /// An instant as sd-event's microsecond timestamps on CLOCK_MONOTONIC.
  static func microseconds(_ instant: Instant) -> UInt64 {
    UInt64(max(0, instant.nanoseconds / 1000))
  }
}
