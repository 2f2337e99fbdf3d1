import JetsamCore
import JetsamPlatform
import JetsamValues

/// Removes the cgroups of apps that ended, without ever waiting on the loop: one attempt now, and while the
/// kernel still counts exiting processes, more attempts on a timer that backs off.
final class CgroupReaper {
  /// How long removal is retried before the cgroup is left in place with a warning.
  static let patience: Duration = .seconds(10)

  private struct Pending {
    let cgroup: any AppCgroupControl
    let since: Instant
    var retryIn: Duration
    var waiters: [(Bool) -> Void]
  }

  private let loop: any LoopScheduling
  private let log: Logger
  private var pending: [String: Pending] = [:]
  private var timer: (any LoopSource)?

  init(loop: any LoopScheduling, log: Logger) {
    self.loop = loop
    self.log = log
  }

  /// Whether app `name`'s previous cgroup is still on its way out.
  func isRemoving(_ name: String) -> Bool { pending[name] != nil }

  /// Names of the cgroups still on their way out.
  var removing: [String] { pending.keys.sorted() }

  /// Removes `cgroup` now if it is empty, else soon.
  func remove(_ cgroup: any AppCgroupControl) {
    guard pending[cgroup.name] == nil else { return }
    if attempt(cgroup) { return }
    pending[cgroup.name] = Pending(cgroup: cgroup, since: loop.now(), retryIn: .milliseconds(1), waiters: [])
    arm()
  }

  /// Calls `then(true)` once app `name`'s previous cgroup is gone, `then(false)` if it could not be removed.
  func whenRemoved(_ name: String, then: @escaping (Bool) -> Void) {
    guard pending[name] != nil else { return then(true) }
    pending[name]!.waiters.append(then)
  }

  /// Calls `then` once every pending removal has ended (removed or given up).
  func whenIdle(_ then: @escaping () -> Void) {
    let names = removing
    guard !names.isEmpty else { return then() }
    var left = names.count
    for name in names {
      whenRemoved(name) { _ in
        left -= 1
        if left == 0 { then() }
      }
    }
  }

  /// One removal attempt; true when the cgroup is gone or cannot be removed at all.
  private func attempt(_ cgroup: any AppCgroupControl) -> Bool {
    do {
      return try cgroup.removeIfEmpty()
    } catch {
      log.warning("removing \(cgroup.name)'s cgroup: \(error)")
      return true
    }
  }

  private func arm() {
    guard let soonest = pending.values.map(\.retryIn).min() else { return }
    if timer == nil { timer = try? loop.addTimer(at: nil) { [unowned self] in self.retry() } }
    timer?.schedule(at: loop.now().advanced(by: soonest))
  }

  private func retry() {
    let now = loop.now()
    for name in pending.keys.sorted() {
      let entry = pending[name]!
      var done = attempt(entry.cgroup)
      var removed = done
      if !done && entry.since.advanced(by: CgroupReaper.patience) <= now {
        log.warning("\(name)'s cgroup stays: \(entry.cgroup.busyError())")
        done = true
        removed = false
      }
      if done {
        pending[name] = nil
        for waiter in entry.waiters { waiter(removed) }
      } else {
        // Exiting processes usually leave within milliseconds; a stuck one is retried less and less often.
        pending[name]!.retryIn = min(entry.retryIn * 2, .milliseconds(200))
      }
    }
    arm()
  }
}
