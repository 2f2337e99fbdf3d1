/// What the CPU monitor measured of an app over its budget: the figures of a CPU exception report and of a
/// `cpuResourceLimit` exit record.
public struct CPUUsageReport: Codable, Hashable, Sendable {
  /// `background` or `foreground`: the state whose budget was exceeded.
  public var state: String
  /// CPU time the app used in the window (all its processes and threads).
  public var cpuSeconds: Double
  /// The window's length, and how much of it was sampled (less while the app has been watched for less).
  public var windowSeconds: Double
  public var sampledSeconds: Double
  /// The budget: percent of one core over the window.
  public var limitPercent: Double
  /// How long the app had been over the budget (0 at the exception; at a kill, since the exception).
  public var overSeconds: Double

  public init(
    state: String, cpuSeconds: Double, windowSeconds: Double, sampledSeconds: Double, limitPercent: Double,
    overSeconds: Double
  ) {
    self.state = state
    self.cpuSeconds = cpuSeconds
    self.windowSeconds = windowSeconds
    self.sampledSeconds = sampledSeconds
    self.limitPercent = limitPercent
    self.overSeconds = overSeconds
  }
}
