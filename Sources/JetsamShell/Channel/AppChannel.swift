import Glibc
import JetsamPlatform
import JetsamWire

/// What the supervisor needs of an app's channel: send a line, close it. (Unit tests record the lines.)
protocol AppChannelEndpoint: AnyObject {
  func send(_ line: AppLine)
  func close()
}

/// The daemon's end of one app's channel: a connected Unix stream socket whose other end the app inherited.
///
/// Output waiting for an app that does not read is bounded (a stopped app cannot read: lines queue until it
/// runs again); an app that lets ``maxQueuedOutput`` pile up loses its channel, never the daemon its memory.
final class AppChannel: AppChannelEndpoint {
  /// Output queued for the app beyond which the channel is closed.
  static let maxQueuedOutput = 1 << 20

  private let stream: LineStream

  init(fd: FileDescriptor, loop: EventLoop, onInput: @escaping (LineStream.Input) -> Void) throws {
    stream = try LineStream(
      fd: fd, loop: loop, maxLineBytes: AppLine.maxBytes, maxQueuedOutput: AppChannel.maxQueuedOutput,
      onInput: onInput)
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
  func send(_ line: AppLine) { stream.send(line.encoded.utf8) }

  func close() { stream.close() }
}
