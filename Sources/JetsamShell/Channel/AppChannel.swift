import CJetsamShim
import Glibc

/// The daemon's end of one app's channel: a connected Unix stream socket whose other end the app inherited.
///
/// Lines longer than ``AppLine/maxBytes`` are reported once and dropped as they arrive; output waiting for an
/// app that does not read is bounded (a stopped app cannot read: lines queue until it runs again), and an app
/// that lets ``maxQueuedOutput`` pile up loses its channel, never the daemon its memory.
final class AppChannel {
  /// Output queued for the app beyond which the channel is closed.
  static let maxQueuedOutput = 1 << 20

  enum Input {
    case line(Substring)
    case tooLong
  }

  let fd: FileDescriptor
  private var source: EventSource?
  private var input: [UInt8] = []
  private var discarding = false
  private var output: [UInt8] = []
  private(set) var closed = false

  init(fd: FileDescriptor, loop: EventLoop, onInput: @escaping (Input) -> Void) throws {
    self.fd = fd
    source = try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [unowned self] events in
      if events & EpollEvents.writable != 0 { self.flush() }
      if events & (EpollEvents.readable | EpollEvents.hangUp | EpollEvents.error) != 0 { self.readAvailable(onInput) }
    }
  }

  /// Makes the pair: the daemon's end (non-blocking) and the end the app inherits (blocking, CLOEXEC: the
  /// spawner clears that only on the duplicate it places at the app's descriptor number).
  static func makePair() throws(SystemError) -> (daemon: FileDescriptor, app: FileDescriptor) {
    var fds: [Int32] = [-1, -1]
    try systemCall("socketpair") {
      socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
    }
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
  }

  /// Queues a line and writes what the socket takes now.
  func send(_ line: AppLine) {
    guard !closed else { return }
    output += Array((line.encoded + "\n").utf8)
    if output.count > AppChannel.maxQueuedOutput {
      close()
      return
    }
    flush()
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
    source?.setIOEvents(EpollEvents.readable | (output.isEmpty ? 0 : EpollEvents.writable))
  }

  private func readAvailable(_ onInput: (Input) -> Void) {
    var chunk = [UInt8](repeating: 0, count: 8192)
    while !closed {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno != EAGAIN { close() }
        return
      }
      if n == 0 {
        // The app closed its end (or exited): nothing more will come.
        close()
        return
      }
      for byte in chunk[0..<n] {
        if byte == UInt8(ascii: "\n") {
          if !discarding { onInput(.line(Substring(String(decoding: input, as: UTF8.self)))) }
          discarding = false
          input.removeAll(keepingCapacity: true)
        } else if !discarding {
          input.append(byte)
          if input.count >= AppLine.maxBytes {
            discarding = true
            input.removeAll()
            onInput(.tooLong)
          }
        }
      }
    }
  }

  func close() {
    guard !closed else { return }
    closed = true
    source?.cancel()
    source = nil
    fd.close()
  }
}
