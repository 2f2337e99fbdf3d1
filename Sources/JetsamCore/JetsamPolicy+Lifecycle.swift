import JetsamValues

/// The lifecycle's place in the policy: every move it makes is told to the monitors at once, and a suspension is
/// composed of the lifecycle's move, the app's stop, the `defer` rule's lock check before it and the readings that
/// go with it.
extension JetsamPolicy {
  /// Tells the monitors of every move among `actions` (the lifecycle's outcome), and returns them.
  ///
  /// Called right after each lifecycle step, before anything else in the same event reads a monitor: a tick's
  /// rounds, later in the same tick, must see the states the moves left.
  mutating func afterMoves(_ actions: [PolicyAction], at: Instant) -> [PolicyAction] {
    for case .stateChanged(let name, let from, let to, _) in actions {
      rewatchCPU(name, at: at)
      rewatchDiskWrites(name, at: at)
      rewatchSuspendedMemory(name, from: from, to: to, at: at)
    }
    return actions
  }

  /// Suspends a foreground or background app, through the background; the suspend action follows the states.
  /// Under the `defer` rule its file locks are looked at first, unless `checkingLocks` is false (every rule has them
  /// looked at once its processes are seen stopped).
  mutating func suspendNow(_ name: String, at: Instant, checkingLocks: Bool = true) -> [PolicyAction] {
    if checkingLocks, let check = checkLocksBeforeSuspending(name, at: at) { return check }
    var moves = lifecycle.apps[name]?.state.holdsForegroundSlot == true ? lifecycle.leaveForeground(name, at: at) : []
    moves.append(lifecycle.move(name, to: .suspended, at: at))
    return afterMoves(moves, at: at) + (lifecycle.apps[name]?.stop(at: at, timeout: config.suspendTimeout) ?? [])
      + readingsAtSuspension(name)
  }

  /// An app that survived a daemon restart joins the lifecycle; the monitors watch it again, and a jetsam victim
  /// whose SIGKILL went out before the restart holds back the next kill until it is gone, as it would have.
  mutating func adopt(_ adopted: AppStatus, at: Instant) -> [PolicyAction] {
    guard let state = lifecycle.adopt(adopted, at: at), let pid = adopted.pid else { return [] }
    rewatchSuspendedMemory(adopted.name, from: .notRunning, to: state, at: at)
    guard let inFlight = adopted.killInFlight else {
      rewatchCPU(adopted.name, at: at)
      rewatchDiskWrites(adopted.name, at: at)
      return []
    }
    if inFlight.kill == .jetsam {
      jetsam.killing(adopted.name, pid: pid, until: at.advanced(by: config.killTimeout))
    }
    return []
  }
}
