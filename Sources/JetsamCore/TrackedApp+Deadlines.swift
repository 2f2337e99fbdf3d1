import JetsamValues

extension TrackedApp {
  /// The earliest instant at which this app needs a `.tick`: its process's grace, terminate, suspend and
  /// restoration deadlines, its channel's acknowledgement and background-task deadlines, and its commands' next poll
  /// of ready. Nil for an app without a process: every deadline belongs to one.
  func earliestDeadline(_ context: DeadlineContext) -> Instant? {
    // Read through the app in place: binding the process would copy (and retain) each of its fields.
    guard process != nil else { return nil }
    var earliest: Instant?
    func consider(_ deadline: Instant?) {
      if let deadline, earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }
    consider(process?.graceDeadline)
    consider(process?.terminateDeadline)
    consider(process?.suspendDeadline)
    consider(channelDeadline(context.timings, charging: context.charging))
    consider(process?.restoration.deadline)
    // A suspended program's poll of ready waits for its return (commandsTick).
    if state != .suspended { consider(process?.commands.nextReadyRun) }
    return earliest
  }
}
