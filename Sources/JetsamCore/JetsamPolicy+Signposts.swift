import JetsamValues
import JetsamWire

/// The signpost meter's place in the policy: which signposts count (the launch's metrics hold at most
/// ``LaunchMetrics/maxSignpostNames`` names), and the figures its intervals come to.
extension JetsamPolicy {
  /// App `name` passed signpost `signpost` at `at`: an `event` is counted, a `begin` opens an interval (and asks
  /// for the counters), an `end` closes the latest open one of its name (counts its duration, asks for the
  /// counters). A name beyond ``LaunchMetrics/maxSignpostNames`` is not counted; an `end` with no open `begin`
  /// counts nothing.
  mutating func noteSignpost(_ name: String, _ signpost: String, _ phase: SignpostPhase, at: Instant)
    -> [PolicyAction]
  {
    guard let pid = lifecycle.apps[name]?.process?.pid, let figures = lifecycle.apps[name]?.process?.metrics.signposts
    else {
      return []
    }
    let room = figures[signpost] != nil || figures.count < LaunchMetrics.maxSignpostNames
    switch phase {
    case .event:
      guard room else { return [] }
      lifecycle.apps[name]?.process?.metrics.signposts[signpost, default: SignpostFigures()].totalCount += 1
      return []
    case .begin:
      guard room else { return [] }
      let reading = signposts.begin(name, pid: pid, signpost, at: at)
      return reading.map { [.readSignpostCounters(app: name, pid: pid, reading: $0)] } ?? []
    case .end:
      guard let ended = signposts.end(name, pid: pid, signpost, counted: room, at: at) else { return [] }
      lifecycle.apps[name]?.process?.metrics.signposts[signpost, default: SignpostFigures()].totalCount += 1
      lifecycle.apps[name]?.process?.metrics.signposts[signpost]?.durations.count(seconds: ended.seconds)
      return ended.reading.map { [.readSignpostCounters(app: name, pid: pid, reading: $0)] } ?? []
    }
  }

  /// The counters of reading `reading` (nil: unreadable): once an ended interval's both readings are in, its cost
  /// is counted.
  mutating func signpostCountersRead(app name: String, pid: Int32, reading: Int, counters: SignpostCounters?) {
    guard lifecycle.apps[name]?.process?.pid == pid,
      let costed = signposts.read(name, pid: pid, reading: reading, counters: counters)
    else { return }
    lifecycle.apps[name]?.process?.metrics.signposts[costed.name]?.addCost(from: costed.begin, to: costed.end)
  }
}
