/// How much CPU an app may use in one state: at most `limitPercent` of one core, averaged over `window`.
///
/// iOS's background limit is 80 % over 60 s: past it the app gets a CPU exception report (MetricKit's
/// `MXCPUExceptionDiagnostic`), and if it goes on it is terminated (`cpu_resource_fatal`).
public struct CPUBudget: Sendable, Equatable {
  /// Percent of one core (above 100 for apps that may use several cores).
  public var limitPercent: Double
  /// The sliding window the usage is averaged over.
  public var window: Duration
  /// How long the app may stay over the budget after its CPU exception before it is killed
  /// (`cpuResourceLimit`); nil: never killed, the exception is only reported.
  public var killAfter: Duration?

  public init(limitPercent: Double, window: Duration, killAfter: Duration?) {
    self.limitPercent = limitPercent
    self.window = window
    self.killAfter = killAfter
  }

  /// The CPU-seconds the budget allows in one window.
  public var allowedSeconds: Double { limitPercent / 100 * window.seconds }
}
