/// MetricKit's `MXAppLaunchMetric` as its JSON writes it: times to first draw of launches into the foreground, and
/// times of returns from the background, in milliseconds.
public struct AppLaunchMetricsPayload: Codable, Sendable, Equatable {
  public var histogrammedTimeToFirstDrawKey: MetricKitHistogram
  public var histogrammedResumeTime: MetricKitHistogram
  /// jetsam's: the times to first draw split by what ended the launch before (`fresh` when none did): a cold launch
  /// after a jetsam kill (`memoryPressure`) is the one a user waits for. MetricKit's JSON has no such split.
  public var jetsamHistogrammedTimeToFirstDrawByPreviousExit: [String: MetricKitHistogram]?

  public init(
    histogrammedTimeToFirstDrawKey: MetricKitHistogram, histogrammedResumeTime: MetricKitHistogram,
    jetsamHistogrammedTimeToFirstDrawByPreviousExit: [String: MetricKitHistogram]? = nil
  ) {
    self.histogrammedTimeToFirstDrawKey = histogrammedTimeToFirstDrawKey
    self.histogrammedResumeTime = histogrammedResumeTime
    self.jetsamHistogrammedTimeToFirstDrawByPreviousExit = jetsamHistogrammedTimeToFirstDrawByPreviousExit
  }
}

/// MetricKit's `MXAppResponsivenessMetric`: lifecycle handlers of 250 ms or more and the watchdog's hangs.
public struct AppResponsivenessMetricsPayload: Codable, Sendable, Equatable {
  public var histogrammedAppHangTime: MetricKitHistogram
}

/// MetricKit's `MXAppRunTimeMetric` (`applicationTimeMetrics`): time in the foreground, running in the background,
/// and of that in the background with the `audio` band lift.
public struct AppTimeMetricsPayload: Codable, Sendable, Equatable {
  public var cumulativeForegroundTime: String
  public var cumulativeBackgroundTime: String
  public var cumulativeBackgroundAudioTime: String
}

/// MetricKit's `MXCPUMetric`: the CPU time of the app's cgroup over the exits counted.
public struct CPUMetricsPayload: Codable, Sendable, Equatable {
  public var cumulativeCPUTime: String
}

/// MetricKit's `MXMemoryMetric`: the highest memory the app's cgroup was charged, over the exits counted.
public struct MemoryMetricsPayload: Codable, Sendable, Equatable {
  public var peakMemoryUsage: String
  /// The time-weighted average of the app's memory while suspended, in kB; absent if it was never suspended.
  public var averageSuspendedMemory: MetricKitAverage?
}
