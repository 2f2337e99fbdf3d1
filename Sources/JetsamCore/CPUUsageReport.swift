/// What the CPU monitor measured of an app that reached a CPU limit: the figures of a CPU exception diagnostic and
/// of a `cpuResourceLimit` exit record, worded as iOS words them (``summary``).
public struct CPUUsageReport: Hashable, Sendable {
  /// `background` or `foreground`: the state whose limit was reached.
  public var state: CoarseState
  /// CPU time the app used in the window (all its processes and threads).
  public var cpuSeconds: Double
  /// The limit's window, and how much of it was measured (less while the app has been watched for less: iOS too
  /// kills as soon as the window's CPU time is spent, "48 seconds cpu time over 52 seconds").
  public var windowSeconds: Double
  public var sampledSeconds: Double
  /// The limit: percent of one core over the window.
  public var limitPercent: Double
  /// Whether the limit was the fatal one (the app is killed) or the non-fatal one (only reported).
  public var fatal: Bool

  public init(
    state: CoarseState, cpuSeconds: Double, windowSeconds: Double, sampledSeconds: Double, limitPercent: Double,
    fatal: Bool
  ) {
    self.state = state
    self.cpuSeconds = cpuSeconds
    self.windowSeconds = windowSeconds
    self.sampledSeconds = sampledSeconds
    self.limitPercent = limitPercent
    self.fatal = fatal
  }

  /// The average use over the measured time, in percent of one core.
  public var averagePercent: Double { sampledSeconds > 0 ? cpuSeconds / sampledSeconds * 100 : 0 }

  /// The figures as an iOS crash log gives them: "48 seconds cpu time over 52 seconds (93% cpu average), exceeding
  /// limit of 80% cpu over 60 seconds".
  public var summary: String {
    func seconds(_ value: Double) -> String {
      // Whole seconds as iOS writes them; a tenth below ten (scaled-down windows are short).
      let rounded = value >= 10 ? value.rounded() : (value * 10).rounded() / 10
      let text = rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
      return "\(text) second\(text == "1" ? "" : "s")"
    }
    return "\(seconds(cpuSeconds)) cpu time over \(seconds(sampledSeconds)) (\(Int64(averagePercent.rounded()))% "
      + "cpu average), exceeding limit of \(Int64(limitPercent.rounded()))% cpu over \(seconds(windowSeconds))"
  }
}

// Written with its `summary`, for whoever reads a record; read back without it. Reports written before the
// non-fatal limit existed were all fatal ones (a kill's figures).
extension CPUUsageReport: Codable {
  enum CodingKeys: String, CodingKey {
    case state, cpuSeconds, windowSeconds, sampledSeconds, limitPercent, fatal, summary
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    state = try c.decode(CoarseState.self, forKey: .state)
    cpuSeconds = try c.decode(Double.self, forKey: .cpuSeconds)
    windowSeconds = try c.decode(Double.self, forKey: .windowSeconds)
    sampledSeconds = try c.decode(Double.self, forKey: .sampledSeconds)
    limitPercent = try c.decode(Double.self, forKey: .limitPercent)
    fatal = try c.decodeIfPresent(Bool.self, forKey: .fatal) ?? true
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(state, forKey: .state)
    try c.encode(cpuSeconds, forKey: .cpuSeconds)
    try c.encode(windowSeconds, forKey: .windowSeconds)
    try c.encode(sampledSeconds, forKey: .sampledSeconds)
    try c.encode(limitPercent, forKey: .limitPercent)
    try c.encode(fatal, forKey: .fatal)
    try c.encode(summary, forKey: .summary)
  }
}
