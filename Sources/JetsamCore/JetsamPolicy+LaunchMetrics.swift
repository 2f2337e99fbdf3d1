import JetsamValues

/// Per-launch metrics (``LaunchMetrics``), measured from the lifecycle events the policy already sees: deliveries,
/// acknowledgements, state changes, the spawn and the exit.
extension JetsamPolicy {
  /// The metrics of app `name`'s running process so far, with its current state's stint counted up to `now`; nil
  /// while no process runs.
  public func launchMetrics(of name: String, at now: Instant) -> LaunchMetrics? {
    guard let index = trackedApps.index(forKey: name) else { return nil }
    return metricsSoFar(trackedApps.values[index], at: now)
  }

  /// Every running app's metrics so far, by name (what `jetsamctl metrics` adds to the records).
  public func runningLaunchMetrics(at now: Instant) -> [String: LaunchMetrics] {
    var result: [String: LaunchMetrics] = [:]
    for index in trackedApps.values.indices {
      let app = trackedApps.values[index]
      if let metrics = metricsSoFar(app, at: now) { result[app.name] = metrics }
    }
    return result
  }

  private func metricsSoFar(_ app: borrowing TrackedApp, at now: Instant) -> LaunchMetrics? {
    guard var metrics = app.process?.metrics else { return nil }
    metrics.addTime(now.seconds(since: app.stateEnteredAt), in: app.state, audio: app.listensToAudio)
    if let held = suspendedMemory.heldReading(of: app.name) {
      metrics.suspendedMemory.hold(bytes: held.bytes, for: now.seconds(since: held.at))
    }
    return metrics
  }

  /// A state change: the stint in the state it leaves is counted.
  static func countStint(_ app: inout TrackedApp, leavingAt at: Instant) {
    let seconds = at.seconds(since: app.stateEnteredAt)
    let audio = app.listensToAudio
    let state = app.state
    app.process?.metrics.addTime(seconds, in: state, audio: audio)
  }

  /// An event goes out: a launch's first `didBecomeActive` and a return's `willEnterForeground` start a
  /// measurement, the return's `didBecomeActive` names the acknowledgement that ends it.
  mutating func noteDelivery(_ name: String, _ event: AppEvent, at: Instant) {
    guard let timers = trackedApps[name]?.process?.timers else { return }
    switch event.kind {
    case .willEnterForeground:
      trackedApps[name]?.process?.timers.resumeSince = at
      trackedApps[name]?.process?.timers.resumeEvent = nil
    case .didBecomeActive:
      if timers.awaitsFirstDraw {
        trackedApps[name]?.process?.timers.awaitsFirstDraw = false
        trackedApps[name]?.process?.timers.firstDrawEvent = event.id
      } else if timers.resumeSince != nil, timers.resumeEvent == nil {
        trackedApps[name]?.process?.timers.resumeEvent = event.id
      }
    default: break
    }
  }

  /// The app acknowledged `pending` (event `id`): its handler's time may be a hang, and it may end a launch or a
  /// return. A command hook's end is not the app's answer: it measures nothing.
  mutating func noteAcknowledgement(_ name: String, _ pending: PendingAck, id: Int, at: Instant) {
    guard !pending.answeredByHook, let process = trackedApps[name]?.process else { return }
    if let since = pending.since { trackedApps[name]?.process?.metrics.noteHandler(seconds: at.seconds(since: since)) }
    if process.timers.firstDrawEvent == id {
      trackedApps[name]?.process?.timers.firstDrawEvent = nil
      trackedApps[name]?.process?.metrics.timeToFirstDrawSeconds = at.seconds(since: process.spawnedAt)
    }
    if process.timers.resumeEvent == id, let since = process.timers.resumeSince {
      trackedApps[name]?.process?.timers.resumeSince = nil
      trackedApps[name]?.process?.timers.resumeEvent = nil
      trackedApps[name]?.process?.metrics.resumeTimes.count(seconds: at.seconds(since: since))
    }
  }

  /// The watchdog's kill: the hang it ended is counted.
  mutating func noteWatchdogHang(_ name: String, seconds: Double) {
    trackedApps[name]?.process?.metrics.hangTimes.count(seconds: seconds)
  }
}

extension TrackedApp {
  /// Whether its background time is also background audio time: it holds the `audio` band lift.
  var listensToAudio: Bool { settings.bandFloor == .audio }
}
