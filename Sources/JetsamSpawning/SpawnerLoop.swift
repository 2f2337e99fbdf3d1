import CJetsamShim
import Glibc
import JetsamPlatform
import JetsamValues

/// jetsam-spawner's event loop: plain epoll, with signals through a signalfd each. jetsamd's ``EventLoop`` is
/// sd-event's; the spawner, the most privileged process, serves one connection and its children and links no
/// libsystemd for it. Every handler runs on the thread that called ``run()``.
public final class SpawnerLoop {
  private let epoll: FileDescriptor
  /// What each registered descriptor's token calls.
  private var handlers: [UInt64: (UInt32) -> Void] = [:]
  private var nextToken: UInt64 = 1
  private var exitCode: Int32?

  public init() throws(SystemError) {
    epoll = FileDescriptor(rawValue: try systemCall("epoll_create1") { jetsam_epoll_create() })
  }

  deinit { epoll.close() }

  /// Calls `handler` with the returned epoll events whenever `fd` is ready for `events` (``EpollEvents``).
  public func watch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(SystemError)
    -> SpawnerLoopSource
  {
    let token = nextToken
    nextToken += 1
    try systemCall("epoll_ctl add fd \(fd)") { jetsam_epoll_add(epoll.rawValue, fd, events, token) }
    handlers[token] = handler
    return SpawnerLoopSource(loop: self, fd: fd, token: token)
  }

  /// Calls `handler` when `signal` arrives (through a signalfd: the signal must be blocked in every thread).
  public func onSignal(_ signal: Signal, handler: @escaping () -> Void) throws(SystemError) -> SpawnerLoopSource {
    let fd = FileDescriptor(rawValue: try systemCall("signalfd \(signal)") { jetsam_signalfd(signal.rawValue) })
    do {
      let source = try watch(fd: fd.rawValue, events: EpollEvents.readable) { _ in
        var code: Int32 = 0
        var arrived = false
        while jetsam_signalfd_read(fd.rawValue, &code) == 0 { arrived = true }
        if arrived { handler() }
      }
      source.owned = fd
      return source
    } catch {
      fd.close()
      throw error
    }
  }

  /// Runs until ``exit(code:)``; returns the exit code.
  public func run() throws(SystemError) -> Int32 {
    var events = [UInt32](repeating: 0, count: 64)
    var tokens = [UInt64](repeating: 0, count: 64)
    while exitCode == nil {
      let count = try systemCall("epoll_wait") {
        jetsam_epoll_wait(epoll.rawValue, &events, &tokens, Int32(events.count))
      }
      for index in 0..<Int(count) where exitCode == nil {
        // A handler may have cancelled a source that was ready in the same round: it is skipped.
        handlers[tokens[index]]?(events[index])
      }
    }
    return exitCode!
  }

  /// Makes ``run()`` return `code` after the current handler.
  public func exit(code: Int32) { exitCode = code }

  fileprivate func modify(fd: Int32, token: UInt64, events: UInt32) {
    _ = jetsam_epoll_modify(epoll.rawValue, fd, events, token)
  }

  fileprivate func remove(fd: Int32, token: UInt64) {
    handlers[token] = nil
    _ = jetsam_epoll_delete(epoll.rawValue, fd)
  }
}

/// One registered descriptor of a ``SpawnerLoop``; cancel it (before closing the descriptor) to stop watching.
public final class SpawnerLoopSource {
  private weak var loop: SpawnerLoop?
  private let fd: Int32
  private let token: UInt64
  private var cancelled = false
  /// A descriptor the source made and closes with it (a signal's signalfd).
  fileprivate var owned: FileDescriptor?

  fileprivate init(loop: SpawnerLoop, fd: Int32, token: UInt64) {
    self.loop = loop
    self.fd = fd
    self.token = token
  }

  deinit { cancel() }

  /// Changes which epoll events the source waits for (e.g. adds ``EpollEvents/writable`` while output is queued).
  public func setIOEvents(_ events: UInt32) {
    guard !cancelled else { return }
    loop?.modify(fd: fd, token: token, events: events)
  }

  /// Stops watching for good.
  public func cancel() {
    guard !cancelled else { return }
    cancelled = true
    loop?.remove(fd: fd, token: token)
    owned?.close()
    owned = nil
  }
}
