import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import JetsamTestKit

/// Notes the moment a process (not necessarily a child) ends, from a pidfd that becomes readable when it exits.
///
/// The kernel signals the pidfd once the process has exited, which is after its address space was torn down;
/// with process_mrelease the memory may be back before that.
final class ExitWatcher: @unchecked Sendable {
  private let lock = NSLock()
  private var exitedAt: UInt64?
  private var cancelled = false
  let pid: Int32

  /// Starts watching `pid`; throws if the process is already gone.
  init(pid: Int32) throws {
    self.pid = pid
    let pidfd = try openPidfd(pid: pid)
    Thread.detachNewThread { [self] in
      ObserverPriority.promoteCurrentThread()
      var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
      while true {
        let r = poll(&entry, 1, 50)
        let now = MonotonicTime.now()
        if r > 0 {
          lock.lock()
          exitedAt = now
          lock.unlock()
          break
        }
        lock.lock()
        let stop = cancelled
        lock.unlock()
        if stop { break }
      }
      pidfd.close()
    }
  }

  /// When the process exited, if it has.
  var exitTime: UInt64? {
    lock.lock()
    defer { lock.unlock() }
    return exitedAt
  }

  /// Stops watching (the thread ends within 50 ms).
  func cancel() {
    lock.lock()
    cancelled = true
    lock.unlock()
  }
}
