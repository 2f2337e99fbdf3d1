import Foundation
import Glibc
import JetsamWire
import Synchronization

/// The app's end of its channel to jetsamd: whole lines written from any thread, lines read on a thread of its
/// own.
///
/// The channel owns the descriptor. The reader thread closes it when the daemon hangs up (or after
/// ``shutdown()``); writes after that fail with ``JetsamClientError/channelClosed``.
final class LineChannel: Sendable {
  private let descriptor: Int32
  // Whether the descriptor is still open. Held while writing, so that lines never interleave and a descriptor
  // number that was closed (and perhaps reused) is never written to.
  private let isOpen = Mutex<Bool>(true)

  /// Takes over a connected stream socket.
  ///
  /// - Parameter descriptor: The socket; it is made blocking and close-on-exec (the app's own children must
  ///   not inherit its channel).
  /// - Throws: ``JetsamClientError/invalidDescriptor(_:)`` if it is not an open socket.
  init(descriptor: Int32) throws(JetsamClientError) {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .invalidDescriptor("descriptor \(descriptor) is not open (errno \(errno))")
    }
    guard status.st_mode & S_IFMT == S_IFSOCK else {
      throw .invalidDescriptor("descriptor \(descriptor) is not a socket")
    }
    // The daemon may have created the pair non-blocking for its own end; the reader thread wants to block.
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 && flags & O_NONBLOCK != 0 {
      _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    self.descriptor = descriptor
  }

  /// Writes one line, whole.
  ///
  /// - Parameter line: The line; `\n` is added.
  /// - Throws: ``JetsamClientError`` if the line is too long, the channel is closed, or the write fails.
  func send(_ line: AppLine) throws(JetsamClientError) {
    let bytes = Array((line.encoded + "\n").utf8)
    guard bytes.count <= AppLine.maxBytes else { throw .lineTooLong(word: line.word) }
    try isOpen.withLock { (isOpen: inout Bool) throws(JetsamClientError) in
      guard isOpen else { throw .channelClosed }
      try writeAll(bytes)
    }
  }

  /// Starts the reader thread.
  ///
  /// - Parameters:
  ///   - onOutput: Called on the reader thread for each line (or overlong-line notice). It must not block on
  ///     the daemon: replies arrive on this same thread.
  ///   - onClose: Called on the reader thread once the daemon has hung up and the descriptor is closed.
  func startReading(
    onOutput: @escaping @Sendable (LineFramer.Output) -> Void, onClose: @escaping @Sendable () -> Void
  ) {
    let thread = Thread { [self] in
      var framer = LineFramer()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        for output in framer.append(buffer[0..<count]) {
          onOutput(output)
        }
      }
      closeDescriptor()
      onClose()
    }
    thread.name = "jetsam-channel"
    thread.start()
  }

  /// Hangs up: the reader thread sees end-of-file, closes the descriptor and reports the close.
  func shutdown() {
    isOpen.withLock { isOpen in
      if isOpen { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
  }

  private func closeDescriptor() {
    isOpen.withLock { isOpen in
      guard isOpen else { return }
      isOpen = false
      // Never retried: on Linux the descriptor is gone even when close reports EINTR.
      _ = close(descriptor)
    }
  }

  // Called with `isOpen` held.
  private func writeAll(_ bytes: [UInt8]) throws(JetsamClientError) {
    var offset = 0
    while offset < bytes.count {
      // MSG_NOSIGNAL: a daemon that has gone away is an error to report, not a SIGPIPE that kills the app.
      let written = bytes.withUnsafeBytes { buffer in
        Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw .writeFailed(errno: errno)
      }
      offset += written
    }
  }
}
