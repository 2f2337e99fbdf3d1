import JetsamValues

/// An app's acknowledgements and background tasks as its own: its watchdog, the budget its open tasks run on, and
/// the deadlines they make.
extension TrackedApp {
  /// Starts the watchdog of the first watched event the app has not acknowledged, if it is not running: the app's
  /// handler for it runs now (the handlers of the events before it have returned). A suspended app runs none.
  mutating func startWatchdog(at: Instant) {
    guard state != .suspended else { return }
    process?.channel.startWatchdog(at: at)
  }

  /// `backgroundTimeRemaining`: what is left of the background budget; nil (no limit) outside the background.
  func backgroundTimeRemaining(_ timings: LifecycleTimings, at: Instant) -> Duration? {
    guard state == .background, let since = process?.backgroundStint?.since else { return nil }
    return since.advanced(by: timings.backgroundTaskBudget).duration(since: at)
  }

  /// When open background tasks are warned and killed, for an app in the background that holds some the budget
  /// binds.
  func taskExpiry(_ timings: LifecycleTimings, charging: Bool) -> (warning: Instant, kill: Instant)? {
    guard state == .background, let since = process?.backgroundStint?.since,
      (process?.tasks.open.count ?? 0) > exemptTaskCount(charging: charging)
    else { return nil }
    let budgetEnd = since.advanced(by: timings.backgroundTaskBudget)
    return (
      budgetEnd.advanced(by: .zero - timings.expirationWarning),
      budgetEnd.advanced(by: timings.expirationGrace)
    )
  }

  /// The open tasks the budget binds, in id order, with their names: all but the `processing` ones while the device
  /// is idle and charging.
  func boundTasks(charging: Bool) -> [(key: Int, value: String)] {
    guard let tasks = process?.tasks else { return [] }
    return tasks.open.sorted { $0.key < $1.key }.filter { task in !(charging && tasks.processing.contains(task.key)) }
  }

  /// The app side's earliest deadline: a watched acknowledgement's, or its tasks' warning or kill.
  func channelDeadline(_ timings: LifecycleTimings, charging: Bool) -> Instant? {
    // Read through the app in place (no copy of its process), and no array made: it runs for every change to an app.
    var earliest: Instant?
    for pending in process?.channel.pendingAcks.values ?? [:].values {
      if let deadline = pending.deadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }
    if let expiry = taskExpiry(timings, charging: charging) {
      let next = process?.backgroundStint?.expiryWarned == true ? expiry.kill : min(expiry.warning, expiry.kill)
      earliest = earliest.map { min($0, next) } ?? next
    }
    return earliest
  }

  /// How many of the open tasks the background budget does not bind: the `processing` ones while the device is idle
  /// and charging.
  private func exemptTaskCount(charging: Bool) -> Int {
    charging ? (process?.tasks.processing.count ?? 0) : 0
  }
}
