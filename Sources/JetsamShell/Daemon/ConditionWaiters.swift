import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Requests answered once something comes true (`pressure allocate|set --wait`): each waiter's check runs
/// whenever the daemon may have changed what it looks at (after every run of the policy, when the balloon's
/// charge is known), and the waiter is answered once the check has an outcome, or at its deadline.
final class ConditionWaiters {
  /// Nil while it must wait; else what to answer.
  typealias Check = () -> Result<Void, ControlError>?

  private final class Waiter {
    let check: Check
    let then: (Result<Void, ControlError>) -> Void
    var deadline: (any LoopSource)?

    init(check: @escaping Check, then: @escaping (Result<Void, ControlError>) -> Void) {
      self.check = check
      self.then = then
    }
  }

  private let loop: any LoopScheduling
  private var waiters: [Waiter] = []

  init(loop: any LoopScheduling) { self.loop = loop }

  /// Answers through `then` once `check` has an outcome, or with `timedOut` (saying `what` was awaited) after
  /// `timeout`. An outcome already known is returned instead (and `then` is never called).
  func add(
    timeout: Duration, what: String, check: @escaping Check, then: @escaping (Result<Void, ControlError>) -> Void
  ) -> Result<Void, ControlError>? {
    if let outcome = check() { return outcome }
    let waiter = Waiter(check: check, then: then)
    waiter.deadline = try? loop.addTimer(at: loop.now().advanced(by: timeout)) { [unowned self] in
      self.finish(waiter, .failure(ControlError(.timedOut, "timed out after \(timeout) waiting for \(what)")))
    }
    waiters.append(waiter)
    return nil
  }

  /// Runs every waiter's check; answers those that have an outcome.
  func recheck() {
    guard !waiters.isEmpty else { return }
    // Taken out before any is answered: an answer lets its client's next request in, which may add waiters.
    let ready = waiters.compactMap { waiter in waiter.check().map { (waiter, $0) } }
    for (waiter, outcome) in ready { finish(waiter, outcome) }
  }

  private func finish(_ waiter: Waiter, _ outcome: Result<Void, ControlError>) {
    guard let index = waiters.firstIndex(where: { $0 === waiter }) else { return }
    waiters.remove(at: index)
    waiter.deadline?.cancel()
    waiter.deadline = nil
    waiter.then(outcome)
  }
}
