import JetsamCore
import JetsamValues

/// Sees suspended apps' processes stop, without waiting on the loop: checks run right after the actions that
/// sent the stops, then on a loop timer that backs off, until every process of the app is stopped (each app is
/// then reported `suspendCompleted` through the inbox, at the check that saw it, with the file locks it holds),
/// it is resumed, or it ends.
///
/// It never gives up: whether an app whose processes do not stop in time still counts as suspended is the
/// policy's decision (its suspend timeout). A process in uninterruptible sleep (reclaim, a slow disk, a v1
/// freezer) stops once it wakes, and is then reported.
final class StopWatcher {
  /// The first re-check comes this soon: SIGSTOP usually lands within microseconds.
  static let firstInterval: Duration = .microseconds(100)
  /// Re-checks back off to this while the stop is young…
  static let youngInterval: Duration = .milliseconds(10)
  /// …and to this once it has been pending for ``youngFor`` (a process stuck in D state).
  static let oldInterval: Duration = .milliseconds(100)
  static let youngFor: Duration = .seconds(1)

  /// How a check tells whether an app is stopped: true once every process is. In signal mode it also sends
  /// SIGSTOP again to any process that is still running (forked while the signals went out).
  typealias Check = (AppProcess) -> Bool
  /// The file locks each of the apps holds (in their order): asked once per check for the apps it saw stopped, so
  /// that the policy judges them with the stop rather than in a round trip of its own per app.
  typealias LocksHeld = ([AppProcess]) -> [[HeldLock]]

  private struct Pending {
    let app: AppProcess
    let since: Instant
  }

  private let loop: any LoopScheduling
  private let isStopped: Check
  private let locksHeld: LocksHeld
  /// Where the stops seen complete go (the policy).
  private let inbox: any ResultInbox
  /// Told when no stop is pending any more.
  private let afterStops: AfterStopChecks
  private var pending: [String: Pending] = [:]
  private var interval = StopWatcher.firstInterval
  private var timer: (any LoopSource)?

  /// - Parameters:
  ///   - isStopped: checks one app.
  ///   - locksHeld: the locks of the apps a check saw stopped.
  ///   - inbox: told once per check of the apps whose processes are all stopped, each with the instant that was seen,
  ///     in one post.
  ///   - afterStops: the work waiting for the stops to be seen, told when none is pending any more.
  init(
    loop: any LoopScheduling, isStopped: @escaping Check, locksHeld: @escaping LocksHeld, inbox: any ResultInbox,
    afterStops: AfterStopChecks
  ) {
    self.loop = loop
    self.isStopped = isStopped
    self.locksHeld = locksHeld
    self.inbox = inbox
    self.afterStops = afterStops
  }

  /// Whether app `name` has a stop pending.
  func isPending(_ name: String) -> Bool { pending[name] != nil }

  /// Whether any stop is pending.
  var isIdle: Bool { pending.isEmpty }

  /// Starts watching `app`, whose processes were just told to stop. The first check waits for ``checkNow()``
  /// (called once the whole batch of actions is done, so 200 suspends cost one pass).
  func watch(_ app: AppProcess) {
    pending[app.name] = Pending(app: app, since: loop.now())
    interval = StopWatcher.firstInterval
  }

  /// Stops watching app `name` (resumed, or gone).
  func forget(_ name: String) {
    guard pending[name] != nil else { return }
    pending.removeValueReleasingStorage(forKey: name)
    guard pending.isEmpty else { return }
    timer?.schedule(at: nil)
    afterStops.stopsSeen()
  }

  /// Checks every pending app now, reports the stopped ones, and arms the next check for the rest.
  func checkNow() {
    guard !pending.isEmpty else { return }
    var stopped: [(app: AppProcess, at: Instant)] = []
    // Checked in any order (a batch of a thousand is checked several times before all have stopped: no sort each
    // time); reported in name order.
    for entry in pending.values where isStopped(entry.app) { stopped.append((entry.app, loop.now())) }
    for entry in stopped { pending.removeValueReleasingStorage(forKey: entry.app.name) }
    arm()
    stopped.sort { $0.app.name < $1.app.name }
    if !stopped.isEmpty {
      let locks = locksHeld(stopped.map(\.app))
      inbox.post(
        .observed(zip(stopped, locks).map { .suspendCompleted(app: $0.app.name, locks: $1, at: $0.at) }))
    }
    if pending.isEmpty { afterStops.stopsSeen() }
  }

  private func arm() {
    guard let oldest = pending.values.map(\.since).min() else {
      timer?.schedule(at: nil)
      return
    }
    let now = loop.now()
    let ceiling = oldest.advanced(by: StopWatcher.youngFor) <= now ? StopWatcher.oldInterval : StopWatcher.youngInterval
    interval = min(interval * 2, ceiling)
    if timer == nil { timer = try? loop.addTimer(at: nil) { [unowned self] in self.checkNow() } }
    timer?.schedule(at: now.advanced(by: interval))
  }
}
