import JetsamCore
import JetsamPlatform

/// The one way into the policy. It owns the ``JetsamPolicy``, feeds it every request (``submit(_:)``, all or
/// nothing) and every observation (``observe(_:)``), has each action it decides carried out by its owner, in order,
/// and re-arms the policy's next deadline after the runs of each turn of the loop. Nothing in it waits.
///
/// Events reported while actions are being carried out (a supervisor's result, a channel line) wait their turn in a
/// queue: handled in order, never recursively. A run ends when no action and no event is left; the owners are then
/// told at once (``Owners/runDone``: the state file), and once more in the loop's next turn for all the runs of
/// this one (``Owners/turnDone``), when the callers waiting for suspensions to settle are answered.
final class PolicyLoop {
  /// Who the loop tells what it does.
  struct Owners {
    /// Carries out one action: the daemon's dispatch, one owner for each kind of action.
    var perform: (PolicyAction) -> Void = { _ in }
    /// An event the policy took, told before its actions are carried out.
    var handled: (PolicyEvent) -> Void = { _ in }
    /// A batch of actions is carried out: what is best done once for all of them (checking the stops of a batch
    /// of suspends) is done now.
    var batchDone: () -> Void = {}
    /// A run is over; `policyMayHaveChanged` is false when it only took memory samples that changed nothing. What
    /// must not wait for the loop's next turn is done now (the state file: a kill in flight is saved at once).
    var runDone: (_ policyMayHaveChanged: Bool) -> Void = { _ in }
    /// The runs of one turn of the loop are over (told in the next turn, once for all of them);
    /// `policyMayHaveChanged` is false when they only took memory samples that changed nothing (the status need
    /// not be worked out again, a pass over every app).
    var turnDone: (_ policyMayHaveChanged: Bool) -> Void = { _ in }
    /// Whether the processes of app `name` were told to stop and are not all seen stopped yet.
    var isStopPending: (_ name: String) -> Bool = { _ in false }
  }

  /// The policy: read it anywhere, change it only through ``submit(_:)`` and ``observe(_:)``.
  private(set) var policy: JetsamPolicy
  var owners = Owners()
  private let log: Logger
  /// Fires at the policy's next deadline with a tick.
  private var deadline: (any LoopSource)?
  /// Ends the runs of one turn of the loop, once for all of them (``endTurn()``).
  private var runsEnd: (any LoopTurnSource)?

  // Actions decided and not yet carried out, and events reported while carrying out.
  private var pendingActions: [PolicyAction] = []
  private var queuedEvents: [PolicyEvent] = []
  private var nextQueuedEvent = 0
  private var running = false
  /// Whether the run handled anything that may move the policy's next deadline or the status line. A memory
  /// sample that changed nothing does not: it comes every millisecond near a threshold, and both cost a pass
  /// over every app.
  private var policyMayHaveChanged = false
  /// The same, over every run since the last ``endTurn()``.
  private var turnMayHaveChanged = false
  /// Callers waiting for suspensions to settle (control requests answered once the apps are stopped).
  private var suspensionWaiters: [(apps: [String], then: () -> Void)] = []

  /// A loop around `policy`, its deadline timer on `scheduling`.
  init(policy: JetsamPolicy, scheduling: any LoopScheduling, log: Logger) throws {
    self.policy = policy
    self.log = log
    deadline = try scheduling.addTimer(at: nil) { [unowned self, unowned scheduling] in
      self.observe(.tick(at: scheduling.now()))
    }
    runsEnd = try scheduling.addNextTurn { [unowned self] in self.endTurn() }
  }

  /// Feeds requests to the policy, all or nothing: if it refuses one, none is applied and the error says why.
  /// Their actions are carried out together (suspending 200 apps checks once for all of them to stop).
  func submit(_ events: [PolicyEvent]) throws(PolicyError) {
    if events.count == 1 {
      // A refused request leaves the policy unchanged, so a single event needs no trial copy.
      pendingActions += try policy.handle(events[0])
    } else {
      var trial = policy
      var actions: [PolicyAction] = []
      for event in events { actions += try trial.handle(event) }
      policy = trial
      pendingActions += actions
    }
    for event in events { took(event) }
    carryOut()
  }

  /// Feeds an observation or result to the policy (kernel sources, timers, app channels, the supervisor).
  func observe(_ event: PolicyEvent) { observe([event]) }

  /// Feeds several observations in one run: their actions are carried out, the deadline re-armed and the state
  /// saved once for all of them.
  func observe(_ events: [PolicyEvent]) {
    queuedEvents += events
    carryOut()
  }

  /// Calls `then` once none of `apps` is still stopping: each is seen stopped, counted incomplete by the policy's
  /// suspend timeout, or no longer suspended. Never waits, and never calls `then` before returning: whatever
  /// settles a suspension (a check that saw it stopped, the timeout, an exit) comes through this loop, which then
  /// answers the waiters.
  func afterSuspensions(of apps: [String], then: @escaping () -> Void) {
    suspensionWaiters.append((apps, then))
  }

  private func took(_ event: PolicyEvent) {
    if case .memorySampled = event {} else { policyMayHaveChanged = true }
    owners.handled(event)
  }

  /// Carries out every pending action and queued event, then re-arms the deadline timer and tells the owners.
  private func carryOut() {
    guard !running else { return }
    running = true
    repeat {
      while true {
        if !pendingActions.isEmpty {
          let batch = pendingActions
          pendingActions = []
          policyMayHaveChanged = true
          for action in batch { owners.perform(action) }
        } else if nextQueuedEvent < queuedEvents.count {
          // An index rather than removeFirst: a check may queue 1,000 events at once.
          let event = queuedEvents[nextQueuedEvent]
          nextQueuedEvent += 1
          do {
            pendingActions = try policy.handle(event)
            took(event)
          } catch {
            log.warning("policy refused \(event): \(error)")
          }
        } else {
          // The room of a burst (1,000 stops checked at once) is given back, not kept for the daemon's life.
          queuedEvents.removeAll(keepingCapacity: queuedEvents.capacity <= 64)
          nextQueuedEvent = 0
          break
        }
      }
      owners.batchDone()
    } while !pendingActions.isEmpty || !queuedEvents.isEmpty
    running = false
    let changed = policyMayHaveChanged
    policyMayHaveChanged = false
    turnMayHaveChanged = turnMayHaveChanged || changed
    owners.runDone(changed)
    runsEnd?.arm()
  }

  /// What follows the runs of one turn of the loop, done once for all of them: the next deadline (a pass over every
  /// app), the owners' end of turn (the status line, another pass), and the callers waiting for suspensions. A
  /// background queue's thousand results, each its own run, would otherwise cost a thousand passes.
  private func endTurn() {
    let changed = turnMayHaveChanged
    turnMayHaveChanged = false
    if changed { deadline?.schedule(at: policy.nextDeadline) }
    owners.turnDone(changed)
    // Last, and outside the run: answering a waiting request lets its client's next request in, which submits
    // and carries out on its own.
    settleSuspensionWaiters()
  }

  private func settleSuspensionWaiters() {
    guard !suspensionWaiters.isEmpty else { return }
    // Taken out before any is called: an answer may add waiters (its client's next request).
    var settled: [() -> Void] = []
    suspensionWaiters.removeAll { waiter in
      guard waiter.apps.allSatisfy(isSuspensionSettled) else { return false }
      settled.append(waiter.then)
      return true
    }
    for then in settled { then() }
  }

  private func isSuspensionSettled(_ name: String) -> Bool {
    !(owners.isStopPending(name) && policy.isStopAwaited(name))
  }
}
