import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning

/// Accepts connections on a listening socket from the loop, for the control socket and the metrics listener, so
/// that no flood of connections and no shortage of descriptors can take the loop over.
///
/// Each turn accepts at most ``perTurn`` connections (the listener is level-triggered: the rest wake it again
/// after every other source has had its turn), at ``EventPriority/peer``. An accept that fails for want of
/// descriptors or memory (EMFILE, ENFILE, ENOBUFS) leaves the connection in the backlog and pauses accepting for
/// ``pauseAfterFailure``, rather than wake the loop at every turn for it; the failure is logged once per pause.
final class ConnectionAcceptor {
  /// Connections accepted per loop turn at most.
  static let perTurn = 64
  static let pauseAfterFailure: Duration = .seconds(1)

  private var source: EventSource?
  private var resume: EventSource?
  private let log: Logger
  /// What listens, for the log (`control socket /run/jetsam/jetsamd.sock`).
  private let name: String
  private let onConnection: (FileDescriptor) -> Void

  /// Watches `listener` (non-blocking, listening) and hands over each connection accepted (non-blocking,
  /// close-on-exec), which `onConnection` then owns.
  init(
    loop: EventLoop, listener: FileDescriptor, name: String, log: Logger,
    onConnection: @escaping (FileDescriptor) -> Void
  ) throws(SystemError) {
    self.log = log
    self.name = name
    self.onConnection = onConnection
    source = try loop.watch(fd: listener.rawValue, events: EpollEvents.readable) { [unowned self] _ in
      self.acceptWaiting(listener)
    }
    source?.setPriority(.peer)
    resume = try loop.timer(at: nil) { [unowned self] in self.source?.setIOEvents(EpollEvents.readable) }
  }

  /// Stops accepting for good (the listener itself is its owner's to close).
  func cancel() {
    source?.cancel()
    source = nil
    resume?.cancel()
    resume = nil
  }

  private func acceptWaiting(_ listener: FileDescriptor) {
    for _ in 0..<Self.perTurn {
      let fd = jetsam_accept_nonblocking(listener.rawValue)
      if fd >= 0 {
        onConnection(FileDescriptor(rawValue: fd))
        continue
      }
      if errno == EINTR || errno == ECONNABORTED { continue }
      if errno != EAGAIN && errno != EWOULDBLOCK {
        log.warning("\(name): \(SystemError.current("accept")); accepting again in \(Self.pauseAfterFailure)")
        source?.setIOEvents(0)
        resume?.schedule(at: MonotonicClock.now().advanced(by: Self.pauseAfterFailure))
      }
      return
    }
  }
}
