import JetsamValues

/// What a process measures of itself (``LaunchMetrics``) from the lifecycle events the policy sees: deliveries,
/// acknowledgements and hangs.
extension RunningProcess {
  /// An event goes out: a launch's first `didBecomeActive` and a return's `willEnterForeground` start a
  /// measurement, the return's `didBecomeActive` names the acknowledgement that ends it.
  mutating func noteDelivery(_ event: AppEvent, at: Instant) {
    switch event.kind {
    case .willEnterForeground:
      timers.resumeSince = at
      timers.resumeEvent = nil
    case .didBecomeActive:
      if timers.awaitsFirstDraw {
        timers.awaitsFirstDraw = false
        timers.firstDrawEvent = event.id
      } else if timers.resumeSince != nil, timers.resumeEvent == nil {
        timers.resumeEvent = event.id
      }
    default: break
    }
  }

  /// The app acknowledged `pending` (event `id`): its handler's time may be a hang, and it may end a launch or a
  /// return. A command hook's end is not the app's answer: it measures nothing.
  mutating func noteAcknowledgement(_ pending: PendingAck, id: Int, at: Instant) {
    guard !pending.answeredByHook else { return }
    if let since = pending.since { metrics.noteHandler(seconds: at.seconds(since: since)) }
    if timers.firstDrawEvent == id {
      timers.firstDrawEvent = nil
      metrics.timeToFirstDrawSeconds = at.seconds(since: spawnedAt)
    }
    if timers.resumeEvent == id, let since = timers.resumeSince {
      timers.resumeSince = nil
      timers.resumeEvent = nil
      metrics.resumeTimes.count(seconds: at.seconds(since: since))
    }
  }
}
