import JetsamValues

/// Locked files at suspension (iOS's 0xdead10cc): an app about to be suspended, and again once it is, has its file
/// locks looked at; what it holds decides, by its rule, whether it is killed, left running for now, or suspended.
extension JetsamPolicy {
  /// Starts the check before a suspension, or nil when the app's rule ignores locks (or a check is already on its
  /// way). The app has left the foreground when this returns; it is suspended once the check comes back clean.
  mutating func checkLocksBeforeSuspending(_ name: String, at: Instant) -> [PolicyAction]? {
    guard lifecycle.apps[name]?.settings.lockedFiles.action != .ignore, let pid = lifecycle.apps[name]?.process?.pid
    else {
      return nil
    }
    guard lifecycle.apps[name]?.process?.lockCheck != .beforeStop else { return [] }
    let moves = lifecycle.apps[name]?.state.holdsForegroundSlot == true ? lifecycle.leaveForeground(name, at: at) : []
    let actions = afterMoves(moves, at: at)
    lifecycle.apps[name]?.process?.lockCheck = .beforeStop
    return actions + [.inspectLocks(app: name, pid: pid, stage: .beforeStop)]
  }

  /// The shell listed the app's locks.
  mutating func locksInspected(
    _ name: String, pid: Int32, locks: [HeldLock], stage: LockCheckStage, at: Instant
  ) -> [PolicyAction] {
    // A check the app has moved on from (activated, killed, ended) decides nothing.
    guard let app = lifecycle.apps[name], let process = app.process, process.pid == pid, process.lockCheck == stage,
      process.requestedKill == nil
    else { return [] }
    lifecycle.apps[name]?.process?.lockCheck = nil
    let counted = app.settings.lockedFiles.counted(locks)
    switch stage {
    case .beforeStop:
      guard app.state == .background else { return [] }
      guard counted.isEmpty else { return heldAtSuspension(name, pid: pid, locks: counted, at: at) }
      let actions = suspendNow(name, at: at, checkingLocks: false)
      lifecycle.apps[name]?.process?.lockCheck = .stopped
      return actions
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
