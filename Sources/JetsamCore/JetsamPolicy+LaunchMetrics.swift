import JetsamValues

/// Per-launch metrics (``LaunchMetrics``) as the policy reads them: the running apps' metrics so far. What each
/// process measures of itself is its own (`RunningProcess+LaunchMetrics`).
extension JetsamPolicy {
  /// The metrics of app `name`'s running process so far, with its current state's stint counted up to `now`; nil
  /// while no process runs.
  public func launchMetrics(of name: String, at now: Instant) -> LaunchMetrics? {
    guard let index = lifecycle.apps.index(forKey: name) else { return nil }
    return lifecycle.apps.values[index].metricsSoFar(at: now, held: suspendedMemory.heldReading(of: name))
  }

  /// Every running app's metrics so far, by name (what `jetsamctl metrics` adds to the records).
  public func runningLaunchMetrics(at now: Instant) -> [String: LaunchMetrics] {
    var result: [String: LaunchMetrics] = [:]
    for index in lifecycle.apps.values.indices {
      let app = lifecycle.apps.values[index]
      if let metrics = app.metricsSoFar(at: now, held: suspendedMemory.heldReading(of: app.name)) {
        result[app.name] = metrics
      }
    }
    return result
  }
}

extension TrackedApp {
  /// Whether its background time is also background audio time: it holds the `audio` band lift.
  var listensToAudio: Bool { settings.bandFloor == .audio }

  /// Its process's metrics so far, with the current state's stint and the suspension's `held` reading counted up to
  /// `now`; nil while no process runs.
  func metricsSoFar(at now: Instant, held: HeldMemoryReading?) -> LaunchMetrics? {
    guard var metrics = process?.metrics else { return nil }
    metrics.addTime(now.seconds(since: stateEnteredAt), in: state, audio: listensToAudio)
    if let held { metrics.suspendedMemory.hold(bytes: held.bytes, for: now.seconds(since: held.at)) }
    return metrics
  }

  /// A state change: the stint in the state it leaves is counted.
  mutating func countStint(leavingAt at: Instant) {
    let seconds = at.seconds(since: stateEnteredAt)
    let audio = listensToAudio
    let state = state
    process?.metrics.addTime(seconds, in: state, audio: audio)
  }
}
