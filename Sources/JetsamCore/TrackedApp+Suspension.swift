import JetsamValues

/// An app's suspension as its own: the stop it is told, and the timeout that marks it incomplete.
extension TrackedApp {
  /// Tells a suspended app's processes to stop: its suspended time counts from `at` (provisional until
  /// suspendCompleted says when the last process actually stopped), and the suspend timeout runs from `at`.
  mutating func stop(at: Instant, timeout: Duration) -> [PolicyAction] {
    guard let pid = process?.pid else { return [] }
    bandEnteredAt = at
    process?.suspendDeadline = at.advanced(by: timeout)
    return [.suspend(app: name, pid: pid)]
  }

  /// The suspend timeout ran out before every process stopped. The app stays suspended and counts as such from the
  /// request: it is in the idle band, first in line for jetsam, and a process that cannot stop (uninterruptible
  /// sleep) is not running the app's code either. It is marked incomplete (in `ps` and in its exit record) until
  /// its processes are seen stopped. Its locks are looked at now, unless its rule ignores them: an app whose
  /// processes never stop must not keep a lock through its suspension unseen.
  mutating func suspendTimedOut() -> [PolicyAction] {
    process?.suspendDeadline = nil
    guard let pid = process?.pid else { return [] }
    process?.suspendIncomplete = true
    guard settings.lockedFiles.action != .ignore, process?.lockCheck == nil else {
      return [.suspendIncomplete(app: name, pid: pid)]
    }
    process?.lockCheck = .stopped
    return [.suspendIncomplete(app: name, pid: pid), .inspectLocks(app: name, pid: pid, stage: .stopped)]
  }

  /// Its last process was seen stopped: suspended time counts from `at`, not from the request. Its sockets are
  /// looked at. (The locks that came with the report go to the lock machine: ``JetsamPolicy/locksInspected``.)
  mutating func suspendCompleted(at: Instant) -> [PolicyAction] {
    guard state == .suspended else { return [] }
    bandEnteredAt = at
    process?.suspendDeadline = nil
    process?.suspendIncomplete = false
    return defunctSocketsAtSuspension()
  }

  /// Another process continued the suspended process `pid`: a suspended app does not run, so it is stopped again
  /// (with the suspend `timeout` as for any suspension), and counted. Its suspended time starts over once it is seen
  /// stopped: it ran meanwhile.
  mutating func continuedWhileSuspended(pid: Int32, at: Instant, timeout: Duration) -> [PolicyAction] {
    guard state == .suspended, process?.pid == pid else { return [] }
    process?.continuedByOthers += 1
    return stop(at: at, timeout: timeout)
  }
}
