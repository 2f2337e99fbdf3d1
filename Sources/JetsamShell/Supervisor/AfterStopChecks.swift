import JetsamCore
import JetsamValues

/// Work that can wait until the stops under way have been seen: what a suspension reads of the app (its memory, its
/// disk writes) and the look at its sockets. A batch suspend is answered only once every app in it is seen stopped,
/// all in one loop turn when the stops are quick; the readings of a thousand apps (cgroup and `/proc` reads) took a
/// fifth of that turn and told nobody anything the answer needed. An app stopped reads the same a moment later.
///
/// It decides nothing: what is read, and when the policy asked, are the policy's. It only moves the reading to a
/// later loop turn: the one after the check that saw the last pending stop (after the answers that check lets out),
/// and never later than ``longestWait``: an app stuck in uninterruptible sleep keeps a stop pending for as long as
/// it likes, and the monitors must not wait on it.
final class AfterStopChecks {
  /// The longest a piece of work waits for the stops to be seen.
  static let longestWait: Duration = .milliseconds(50)

  private let loop: any LoopScheduling
  /// Whether no stop is pending (the ``StopWatcher``'s).
  private let isIdle: () -> Bool
  private var waiting: [() -> Void] = []
  private var timer: (any LoopSource)?

  init(loop: any LoopScheduling, isIdle: @escaping () -> Bool) {
    self.loop = loop
    self.isIdle = isIdle
  }

  /// Runs `work` in the loop's next turn when no stop is pending (after the answers of this one: a batch's
  /// suspensions are seen complete, and ask for their readings, in the turn that answers it); else once the pending
  /// stops have been seen, or ``longestWait`` from now, whichever comes first. In the order given.
  func run(_ work: @escaping () -> Void) {
    waiting.append(work)
    if isIdle() {
      arm(at: loop.now())
    } else if waiting.count == 1 {
      arm(at: loop.now().advanced(by: AfterStopChecks.longestWait))
    }
  }

  /// No stop is pending any more (the ``StopWatcher`` tells): what waits runs in the next loop turn.
  func stopsSeen() {
    guard !waiting.isEmpty else { return }
    arm(at: loop.now())
  }

  private func arm(at deadline: Instant) {
    if timer == nil { timer = try? loop.addTimer(at: nil) { [unowned self] in self.runWaiting() } }
    guard let timer else { return runWaiting() }
    timer.schedule(at: deadline)
  }

  private func runWaiting() {
    let work = waiting
    waiting = []
    for item in work { item() }
  }
}
