import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning

/// `jetsam-stack`, the libdwfl call-stack taker installed beside jetsamd, run through the process launcher: by the
/// spawner service when there is one (jetsamd's own sandbox allows no ptrace), else by jetsamd.
///
/// A process of its own rather than libdwfl inside jetsamd: an attach to a process that cannot stop (uninterruptible
/// sleep, the v1 freezer) blocks inside ptrace for as long as that lasts, and only a process can be killed out of it.
struct StackTool: Sendable {
  /// The program's path.
  var path: String

  /// The descriptor number the target's pidfd has in the tool.
  static let pidfdDescriptor: Int32 = 3

  /// The request that runs it on `pid` (whose pidfd is `pidfd`) for `samples` samples `interval` apart, writing to
  /// `output`. The tool checks the pidfd after it has attached: should the process have ended and its pid gone to
  /// another, it takes nothing.
  func request(pid: Int32, pidfd: FileDescriptor, samples: Int, interval: Duration, output: FileDescriptor)
    -> SpawnRequest
  {
    SpawnRequest(
      arguments: [
        path, "--samples", String(samples), "--interval-ms", String(interval.nanoseconds / 1_000_000), "--pidfd",
        String(StackTool.pidfdDescriptor), String(pid),
      ],
      environment: ["PATH=/usr/bin:/bin"], workingDirectory: "/", cgroupDirectory: nil, stdout: output,
      passedDescriptors: [(source: pidfd, target: StackTool.pidfdDescriptor)])
  }

  /// One run under way: the read end of its output and a pidfd of its own to kill it with.
  struct Run: Sendable {
    var output: FileDescriptor
    var pidfd: FileDescriptor

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
        if bytes.count < StackTool.maximumOutput { bytes += buffer[..<count] }
      }
      return (String(decoding: bytes, as: UTF8.self), timedOut)
    }
  }

  /// The most output kept from one run (64 MiB).
  static let maximumOutput = 64 << 20
}
