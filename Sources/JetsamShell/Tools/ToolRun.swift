import CJetsamShim
import Glibc
import JetsamPlatform

/// One run of a helper program under way (``ToolStarter``): the read end of its output and a pidfd of its own to
/// kill it with.
struct ToolRun: Sendable {
  var output: FileDescriptor
  var pidfd: FileDescriptor

  /// The most output kept from one run (64 MiB).
  static let maximumOutput = 64 << 20

  /// Reads everything the tool prints until it ends, or until `budget` runs out, when it is killed (what it
  /// printed by then is kept). Blocking: runs on a helper thread. Closes both descriptors.
  func collect(budget: Duration) -> (output: String, timedOut: Bool) {
    defer {
      output.close()
      pidfd.close()
    }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = MonotonicClock.now().advanced(by: budget)
    var timedOut = false
    while true {
      let left = deadline.duration(since: MonotonicClock.now())
      if left <= .zero && !timedOut {
        timedOut = true
        // Killed, its pipe reaches end of file; the launcher reaps it.
        _ = jetsam_pidfd_send_signal(pidfd.rawValue, SIGKILL)
      }
      var ready = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
      let wait = timedOut ? 1_000 : Int32(max(1, min(left.nanoseconds / 1_000_000, 1_000)))
      let polled = poll(&ready, 1, wait)
      if polled < 0 && errno == EINTR { continue }
      if polled == 0 {
        if timedOut { break }  // killed a second ago and still no end of file: give up on it
        continue
      }
      let count = read(output.rawValue, &buffer, buffer.count)
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if count <= 0 { break }
      // Bounded: a thousand samples of a thousand threads is more than any diagnostic keeps.
      if bytes.count < ToolRun.maximumOutput { bytes += buffer[..<count] }
    }
    return (String(decoding: bytes, as: UTF8.self), timedOut)
  }
}
