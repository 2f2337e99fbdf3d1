import JetsamValues

/// Locked files at suspension (iOS's 0xdead10cc): the locks a suspended app holds once its processes are seen
/// stopped (they come with the report, ``PolicyEvent/suspendCompleted(app:locks:at:)``) decide, by its rule, whether
/// it is killed, resumed to run for now, or left suspended. Under `defer` they are looked at before the stop as well,
/// so that an app holding one keeps running rather than being stopped and continued.
///
/// `kill` (iOS's rule) needs no look before the stop: the app dies as a suspended app whichever look finds the lock,
/// and the look once stopped also sees a lock taken in between. A suspension is then one event, not two round trips.
extension JetsamPolicy {
  /// Starts the check before a suspension, or nil when the app's rule is not `defer` (or a check is already on its
  /// way). The app has left the foreground when this returns; it is suspended once the check comes back clean.
  mutating func checkLocksBeforeSuspending(_ name: String, at: Instant) -> [PolicyAction]? {
    guard lifecycle.apps[name]?.settings.lockedFiles.action == .defer, let pid = lifecycle.apps[name]?.process?.pid
    else {
      return nil
    }
    guard lifecycle.apps[name]?.process?.lockCheck != .beforeStop else { return [] }
    let moves = lifecycle.apps[name]?.state.holdsForegroundSlot == true ? lifecycle.leaveForeground(name, at: at) : []
    let actions = afterMoves(moves, at: at)
    lifecycle.apps[name]?.process?.lockCheck = .beforeStop
    return actions + [.inspectLocks(app: name, pid: pid, stage: .beforeStop)]
  }

  /// The shell listed the app's locks: for a check of the lock machine's own at `stage`, or (nil) with the report
  /// that its processes all stopped, which is judged as a check once stopped.
  mutating func locksInspected(
    _ name: String, pid: Int32, locks: [HeldLock], stage: LockCheckStage?, at: Instant
  ) -> [PolicyAction] {
    // A check the app has moved on from (activated, killed, ended) decides nothing.
    guard let app = lifecycle.apps[name], let process = app.process, process.pid == pid,
      stage == nil || process.lockCheck == stage, process.requestedKill == nil
    else { return [] }
    if stage != nil { lifecycle.apps[name]?.process?.lockCheck = nil }
    let counted = app.settings.lockedFiles.counted(locks)
    switch stage ?? .stopped {
    case .beforeStop:
      guard app.state == .background else { return [] }
      guard counted.isEmpty else { return heldAtSuspension(name, pid: pid, locks: counted, at: at) }
      return suspendNow(name, at: at, checkingLocks: false)
    case .stopped:
      guard app.state == .suspended, !counted.isEmpty else { return [] }
      return heldAtSuspension(name, pid: pid, locks: counted, at: at)
    }
  }

  /// The app holds locks its rule counts, as it is (being) suspended.
  private mutating func heldAtSuspension(_ name: String, pid: Int32, locks: [HeldLock], at: Instant)
    -> [PolicyAction]
  {
    guard let app = lifecycle.apps[name] else { return [] }
    switch app.settings.lockedFiles.action {
    case .ignore:
      return app.state == .suspended ? [] : suspendNow(name, at: at, checkingLocks: false)
    case .kill:
      // Killed as a suspended app, as iOS does: it dies for being suspended with the lock.
      let suspension = app.state == .suspended ? [] : suspendNow(name, at: at, checkingLocks: false)
      let pressure = jetsam.pressure
      let kill = lifecycle.apps[name]?.killForItself(
        .lockedFile(locks), reason: .suspendedWithLockedFile, pressure: pressure)
      return suspension + (kill ?? [])
    case .defer:
      var actions: [PolicyAction] = []
      if app.state == .suspended {
        actions = [.resume(app: name, pid: pid)] + afterMoves([lifecycle.move(name, to: .background, at: at)], at: at)
      }
      // Running in the background until the retry, which is its grace: a clean check then suspends it.
      lifecycle.apps[name]?.process?.graceDeadline = at.advanced(by: app.settings.lockedFiles.retry)
      return actions + [.suspensionDeferred(app: name, pid: pid, locks: locks)]
    }
  }
}
