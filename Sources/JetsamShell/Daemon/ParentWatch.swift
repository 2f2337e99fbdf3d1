import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning

/// `--exit-with-parent`: jetsamd stops, as on SIGTERM (its apps ended, their records written, its cgroups removed),
/// once the process that started it has ended, however it ended. A lab's private jetsamd runs with it, so that a
/// lab killed outright (SIGKILL, a crash) leaves no daemon, app or cgroup behind.
///
/// The parent is watched through a pidfd on the loop: it polls readable once the whole process has exited.
/// `PR_SET_PDEATHSIG` would not do: it fires when the parent's *thread* that forked ends, and a multithreaded parent
/// (Foundation's `Process` in jetsam-lab) may start jetsamd from a thread that ends long before the process does.
final class ParentWatch {
  private let pidfd: FileDescriptor
  private var source: EventSource?

  /// Watches the parent; `ended` runs once on the loop when it has ended (at the loop's first turn if it had
  /// already ended).
  init(loop: EventLoop, ended: @escaping () -> Void) throws {
    let parent = getppid()
    pidfd = try openPidfd(pid: parent)
    // A parent that ended before pidfd_open left jetsamd to a reaper, and the pid just opened may be anyone's: asked
    // again after opening, an unchanged getppid() proves the pidfd names the parent.
    if getppid() != parent {
      source = try loop.timer(at: MonotonicClock.now()) { ended() }
      return
    }
    source = try loop.watch(fd: pidfd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
      // An ended process's pidfd stays readable: once is enough.
      self.source = nil
      ended()
    }
  }

  deinit {
    source?.cancel()
    pidfd.close()
  }
}
