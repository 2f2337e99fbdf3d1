import CJetsamShim
import Dispatch
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues
import Synchronization

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
    let release = ReleaseInFlight(eventFD: finished)
    do {
      release.watch = try loop.addWatch(fd: finished, events: EpollEvents.readable) { [release] _ in
        done()
        release.cancel()
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
      release.threadFinished()
    }
    return release
  }
}

/// One release on its way: the loop's watch of its eventfd, and who closes that eventfd. The thread may still
/// write to it after the loop has stopped watching (the app went away first), so it is closed by whichever comes
/// last: the cancel, or the thread's end. Closed once, never leaked, never written after close.
private final class ReleaseInFlight: LoopSource, @unchecked Sendable {
  private struct State {
    var threadDone = false
    var cancelled = false
  }
  private let eventFD: Int32
  private let state = Mutex(State())
  /// Set once on the loop, right after creation; read only on the loop.
  var watch: (any LoopSource)?

  init(eventFD: Int32) { self.eventFD = eventFD }

  func schedule(at deadline: Instant?) {}

  /// Stops watching (on the loop); closes the eventfd now if the thread is done with it.
  func cancel() {
    watch?.cancel()
    watch = nil
    let close = state.withLock { state -> Bool in
      guard !state.cancelled else { return false }
      state.cancelled = true
      return state.threadDone
    }
    if close { Glibc.close(eventFD) }
  }

  /// The thread has written its last byte; closes the eventfd if the loop stopped watching already.
  func threadFinished() {
    let close = state.withLock { state -> Bool in
      state.threadDone = true
      return state.cancelled
    }
    if close { Glibc.close(eventFD) }
  }
}
