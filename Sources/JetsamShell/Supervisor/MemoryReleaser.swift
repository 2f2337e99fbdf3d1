import CJetsamShim
import Dispatch
import Glibc

/// Frees a killed process's memory off the loop: `process_mrelease` blocks while the kernel frees, so it runs
/// on a helper thread that reports back through the loop.
public protocol MemoryReleaser: AnyObject {
  /// Starts releasing the memory of the dying process behind `pidfd`; `done` runs on the loop when the release
  /// has returned. Returns the source to cancel if the app goes away first, or nil when nothing was started
  /// (then there is nothing to wait for).
  func release(pidfd: FileDescriptor, done: @escaping () -> Void) -> (any LoopSource)?
}

/// The real releaser: each kill's release runs on a helper thread, signalling an eventfd the loop watches.
public final class ThreadMemoryReleaser: MemoryReleaser {
  private let loop: any LoopScheduling
  /// Concurrent and of its own (not a global queue, whose few workers a blocked release would hold): libdispatch
  /// starts another thread for each release while the others block.
  private static let releases = DispatchQueue(label: "jetsam.mrelease", qos: .userInitiated, attributes: .concurrent)

  public init(loop: any LoopScheduling) { self.loop = loop }

  public func release(pidfd: FileDescriptor, done: @escaping () -> Void) -> (any LoopSource)? {
    // The thread owns its own duplicate: the app's pidfd may be closed before the release returns.
    let copy = dup(pidfd.rawValue)
    let finished = jetsam_eventfd()
    guard copy >= 0, finished >= 0 else {
      if copy >= 0 { Glibc.close(copy) }
      if finished >= 0 { Glibc.close(finished) }
      return nil
    }
    let source: any LoopSource
    do {
      // `done` cancels this source; the eventfd is closed after that, and only here: the thread may still be
      // writing to it until it fires.
      source = try loop.addWatch(fd: finished, events: EpollEvents.readable) { _ in
        done()
        Glibc.close(finished)
      }
    } catch {
      Glibc.close(copy)
      Glibc.close(finished)
      return nil
    }
    Self.releases.async {
      _ = try? releaseMemory(pidfd: FileDescriptor(rawValue: copy))
      Glibc.close(copy)
      var one: UInt64 = 1
      _ = Glibc.write(finished, &one, 8)
    }
    return source
  }
}
