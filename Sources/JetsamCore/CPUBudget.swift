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

/// The CPU monitor's budgets, per state. A state without a budget is not watched (a suspended app never is: it
/// does not run).
public struct CPUMonitorConfig: Sendable, Equatable {
  /// Background apps: by default iOS's 80 % of a core over 60 s, killed if still over a minute after the exception.
  public var background: CPUBudget?
  /// Foreground apps: not watched unless configured (then reported, never killed: iOS does not kill an app the
  /// user is looking at for its CPU).
  public var foreground: CPUBudget?

  /// How many samples of each watched app's CPU time a window holds: the finer, the closer an exception comes
  /// to the moment the budget is crossed, the dearer the watch.
  public static let samplesPerWindow = 12

  public init(background: CPUBudget? = CPUMonitorConfig.iOSBackground, foreground: CPUBudget? = nil) {
    self.background = background
    self.foreground = foreground
  }

  /// iOS's background budget: 80 % of a core over 60 s, killed if still over a minute after the exception.
  public static let iOSBackground = CPUBudget(limitPercent: 80, window: .seconds(60), killAfter: .seconds(60))

  /// How often watched apps are sampled: a twelfth of the shortest window, at most 100 times a second.
  public var sampleInterval: Duration {
    let windows = [background, foreground].compactMap { $0?.window }
    let shortest = windows.min() ?? .seconds(60)
    return max(shortest / CPUMonitorConfig.samplesPerWindow, .milliseconds(10))
  }

  /// Every duration multiplied by `scale` (the config's `timeScale`).
  public func scaled(by scale: Double) -> CPUMonitorConfig {
    func s(_ budget: CPUBudget?) -> CPUBudget? {
      budget.map { budget in
        CPUBudget(
          limitPercent: budget.limitPercent, window: budget.window.scaled(by: scale),
          killAfter: budget.killAfter?.scaled(by: scale))
      }
    }
    return CPUMonitorConfig(background: s(background), foreground: s(foreground))
  }
}

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

/// One reading of an app's CPU time, taken for a `sampleCPU` action.
public struct CPUSample: Sendable, Equatable {
  public var app: String
  public var pid: Int32
  /// CPU time of the app's whole cgroup so far, in seconds.
  public var cpuSeconds: Double

  public init(app: String, pid: Int32, cpuSeconds: Double) {
    self.app = app
    self.pid = pid
    self.cpuSeconds = cpuSeconds
  }
}

/// An app's process, as named in actions that concern several apps at once.
public struct AppProcessRef: Sendable, Equatable, Hashable {
  public var app: String
  public var pid: Int32

  public init(app: String, pid: Int32) {
    self.app = app
    self.pid = pid
  }
}

extension Duration {
  /// The duration in seconds, as a Double.
  public var seconds: Double { Double(nanoseconds) / 1e9 }

  /// The duration multiplied by `scale`.
  public func scaled(by scale: Double) -> Duration { .nanoseconds(Int64(Double(nanoseconds) * scale)) }
}
