import JetsamValues

/// One app's CPU watch: the limits of its state and the readings of its CPU time that cover their windows.
struct CPUWatch: Sendable {
  /// One reading of the app's cumulative CPU time.
  struct Point: Sendable {
    var at: Instant
    var cpuSeconds: Double
  }

  var limits: CPUStateLimits
  /// `background` or `foreground`.
  var state: CoarseState
  /// Oldest first; the first may lie before the longest window's start (it anchors that window's first stretch).
  var points: [Point] = []
  /// Whether the app is in a run over its non-fatal limit that was reported (one exception per run over it).
  var nonFatalReported = false

  init(limits: CPUStateLimits, state: CoarseState) {
    self.limits = limits
    self.state = state
  }

  /// The longest window: how far back the readings must reach.
  private var longestWindow: Duration { limits.windows.last ?? .zero }

  /// The CPU time used over the `window` that ends at the newest reading (its start interpolated between the two
  /// readings around it), and how much of the window the readings cover.
  func usage(over window: Duration) -> (cpuSeconds: Double, sampled: Duration)? {
    guard points.count >= 2, let last = points.last else { return nil }
    let start = last.at.advanced(by: .zero - window)
    // The newest reading at or before the window's start, if any: the time used before it is the straight line
    // between it and the next one.
    guard let before = points.lastIndex(where: { $0.at <= start }) else {
      return (last.cpuSeconds - points[0].cpuSeconds, last.at.duration(since: points[0].at))
    }
    let first = points[before]
    let next = points[before + 1]
    let fraction = start.seconds(since: first.at) / next.at.seconds(since: first.at)
    let atStart = first.cpuSeconds + (next.cpuSeconds - first.cpuSeconds) * fraction
    return (last.cpuSeconds - atStart, window)
  }

  /// The CPU time per second between the two newest readings.
  var recentRate: Double? {
    guard points.count >= 2 else { return nil }
    let last = points[points.count - 1]
    let previous = points[points.count - 2]
    return (last.cpuSeconds - previous.cpuSeconds) / last.at.seconds(since: previous.at)
  }

  /// Adds a reading and drops those no longer needed to cover the longest window.
  mutating func add(_ point: Point) {
    // A counter that went backwards (a failed read can) starts over.
    if let last = points.last, point.cpuSeconds < last.cpuSeconds || point.at <= last.at { points = [] }
    points.append(point)
    let start = point.at.advanced(by: .zero - longestWindow)
    let stale = (points.lastIndex { $0.at <= start } ?? 0)
    if stale > 0 { points.removeFirst(stale) }
  }
}
