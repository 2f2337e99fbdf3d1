import Foundation
import Glibc

/// A child started with posix_spawn and reaped with `waitpid(pid, WNOHANG)` by whoever asks whether it still runs:
/// the lab's ssh forwardings.
///
/// Not a Foundation `Process`: Foundation learns that a child ended when a socket it hands the child closes, then
/// waits for that child in `waitpid` on its one manager thread. ssh closes every inherited descriptor as it starts,
/// so the first forwarding held that thread until it ended, and no other host's ssh was seen to end in the meantime
/// (a host whose ssh ended was reported as its watch ending, and stopping one could wait on another).
final class SpawnedChild: @unchecked Sendable {
  let pid: pid_t
  private let lock = NSLock()
  private var status: Int32?

  /// Starts `executable` with `arguments` in a process group of its own, stdin from /dev/null and stdout and
  /// stderr to `outputFD` (duplicated; the caller keeps its own).
  init(_ executable: String, _ arguments: [String], outputFD: Int32) throws(SpawnError) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outputFD, 1)
    posix_spawn_file_actions_adddup2(&actions, outputFD, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    guard result == 0 else { throw SpawnError(errno: result) }
    self.pid = pid
  }

  /// The raw wait status once it has ended (reaping it then), nil while it runs.
  private func poll() -> Int32? {
    lock.withLock {
      if status == nil {
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, WNOHANG) } while result == -1 && errno == EINTR
        if result == pid { status = raw }
      }
      return status
    }
  }

  /// Whether it has not ended yet.
  var isRunning: Bool { poll() == nil }

  /// Its exit status, or the signal that ended it (as Foundation's `terminationStatus`); -1 while it runs.
  var terminationStatus: Int32 {
    guard let raw = poll() else { return -1 }
    return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
  }

  /// Blocks until it has ended and reaps it.
  func waitUntilExit() {
    lock.withLock {
      guard status == nil else { return }
      var raw: Int32 = 0
      var result: pid_t
      repeat { result = waitpid(pid, &raw, 0) } while result == -1 && errno == EINTR
      status = raw
    }
  }
}

/// posix_spawn's error.
struct SpawnError: Error, CustomStringConvertible {
  var errno: Int32
  var description: String { String(cString: strerror(errno)) }
}
