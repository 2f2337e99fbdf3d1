import JetsamValues
import JetsamWire

/// Signpost metrics (MetricKit's `MXSignpostMetric`): each name's count and interval durations, measured from the
/// `signpost` lines' own instants, and each interval's cost, from the app's cgroup counters the shell reads at its
/// begin and at its end (`readSignpostCounters`, answered by `signpostCountersRead`).
extension JetsamPolicy {
  /// App `name` passed signpost `signpost` at `at`: an `event` is counted, a `begin` opens an interval (and asks
  /// for the counters), an `end` closes the latest open one of its name (counts its duration, asks for the
  /// counters). A name beyond ``LaunchMetrics/maxSignpostNames`` is not counted; an `end` with no open `begin`
  /// counts nothing.
  mutating func noteSignpost(_ name: String, _ signpost: String, _ phase: SignpostPhase, at: Instant)
    -> [PolicyAction]
  {
    guard let process = trackedApps[name]?.process else { return [] }
    let known = process.metrics.signposts[signpost] != nil
    let room = known || process.metrics.signposts.count < LaunchMetrics.maxSignpostNames
    switch phase {
    case .event:
      guard room else { return [] }
      trackedApps[name]?.process?.metrics.signposts[signpost, default: SignpostFigures()].totalCount += 1
      return []
    case .begin:
      guard room else { return [] }
      let reading = trackedApps[name]?.process?.signposts.nextReading()
      trackedApps[name]?.process?.signposts.begin(signpost, at: at, reading: reading)
      return reading.map { [.readSignpostCounters(app: name, pid: process.pid, reading: $0)] } ?? []
    case .end:
      guard process.signposts.isOpen(signpost) else { return [] }
      // No reading for an end whose begin was not read, nor for one whose name the cap has filled up to since.
      let costed = room && process.signposts.open.last { $0.name == signpost }?.begin != .failed
      let reading = costed ? trackedApps[name]?.process?.signposts.nextReading() : nil
      guard let interval = trackedApps[name]?.process?.signposts.end(signpost, reading: reading), room else {
        return []
      }
      let seconds = at.seconds(since: interval.beganAt)
      trackedApps[name]?.process?.metrics.signposts[signpost, default: SignpostFigures()].totalCount += 1
      trackedApps[name]?.process?.metrics.signposts[signpost]?.durations.count(seconds: seconds)
      return reading.map { [.readSignpostCounters(app: name, pid: process.pid, reading: $0)] } ?? []
    }
  }

  /// The counters of reading `reading` (nil: unreadable): once an ended interval's both readings are in, its cost
  /// is counted. A reading for another process, or for an interval dropped since, is ignored.
  mutating func signpostCountersRead(app name: String, pid: Int32, reading: Int, counters: SignpostCounters?) {
    guard trackedApps[name]?.process?.pid == pid,
      let interval = trackedApps[name]?.process?.signposts.record(reading, counters.map { .read($0) } ?? .failed),
      case .read(let begin) = interval.begin, case .read(let end) = interval.end
    else { return }
    trackedApps[name]?.process?.metrics.signposts[interval.name]?.addCost(from: begin, to: end)
  }
}
