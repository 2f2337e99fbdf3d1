import JetsamCore
import JetsamPlatform

/// Reaps children whose end is known but who could not be reaped when it was: a tracer (a debugger) attached to an
/// app is told of its death first, and until it lets go, `waitid` on the app's pidfd finds nothing although the
/// pidfd reads as ready. Watching that pidfd would wake the loop without end; instead each such zombie is asked
/// again on a timer, ever less often (10 ms doubling to 1 s), until it is reaped. It costs nothing while none waits.
final class ZombieReaper {
  private let loop: any LoopScheduling
  private let reap: (FileDescriptor) -> Bool
  private var waiting: [(pidfd: FileDescriptor, next: Duration)] = []
  private var timer: (any LoopSource)?

  /// - Parameter reap: reaps the process of a pidfd if it can (true once reaped, or once it is no child of ours).
  init(loop: any LoopScheduling, reap: @escaping (FileDescriptor) -> Bool) {
    self.loop = loop
    self.reap = reap
  }

  /// Takes over `pidfd` (closed once its process is reaped).
  func add(_ pidfd: FileDescriptor) {
    waiting.append((pidfd, .milliseconds(10)))
    arm(after: .milliseconds(10))
  }

  /// How many zombies wait to be reaped.
  var count: Int { waiting.count }

  private func arm(after delay: Duration) {
    if timer == nil { timer = try? loop.addTimer(at: nil) { [unowned self] in self.retry() } }
    timer?.schedule(at: loop.now().advanced(by: delay))
  }

  private func retry() {
    waiting = waiting.compactMap { entry in
      if reap(entry.pidfd) {
        entry.pidfd.close()
        return nil
      }
      return (entry.pidfd, min(entry.next * 2, .seconds(1)))
    }
    if let soonest = waiting.map(\.next).min() { arm(after: soonest) }
  }
}
