import JetsamCore

/// One app's metric families added up over a period: from its exit records (each counted once) and its running
/// launch's figures so far, then written as a ``MetricPayload``.
public struct MetricTotals: Sendable {
  public var exits = AppExitMetrics()
  public var timeToFirstDraw = DurationHistogram()
  /// The same, by what ended the launch before (`fresh`: nothing did).
  public var timeToFirstDrawByPreviousExit: [String: DurationHistogram] = [:]
  public var resumeTimes = DurationHistogram()
  public var hangTimes = DurationHistogram()
  public var foregroundSeconds = 0.0
  public var backgroundSeconds = 0.0
  public var backgroundAudioSeconds = 0.0
  /// Whether any launch counted measured itself (records from before jetsam kept launch metrics did not).
  public var measuredLaunches = false
  /// CPU time and peak memory: the shell measures them at the exit (records carry them) and, for a running
  /// launch, when the payload is asked for (``addUsage(cpuSeconds:peakMemoryBytes:)``).
  public var cpuSeconds = 0.0
  public var peakMemoryBytes: Int64 = 0
  public var records = 0
  /// Each signpost name's figures over the launches counted (at most ``LaunchMetrics/maxSignpostNames`` names).
  public var signposts: [String: SignpostFigures] = [:]
  /// Whether a running launch's CPU time and peak memory were read.
  public var measuredUsage = false
  /// The launches' suspended memory, pooled.
  public var suspendedMemory = SuspendedMemoryAverage()
  /// The launches' bytes written; nil while none was read.
  public var bytesWritten: Int64?

  public init() {}

  /// Counts one exit record.
  public mutating func count(_ record: ExitRecord) {
    exits.count(record)
    records += 1
    cpuSeconds += record.usage.cpuSeconds
    peakMemoryBytes = max(peakMemoryBytes, record.usage.peakMemoryBytes)
    if let metrics = record.launchMetrics { add(metrics) }
  }

  /// Adds one launch's figures (an exit record's, or a running launch's so far).
  public mutating func add(_ metrics: LaunchMetrics) {
    measuredLaunches = true
    if let seconds = metrics.timeToFirstDrawSeconds {
      timeToFirstDraw.count(seconds: seconds)
      timeToFirstDrawByPreviousExit[metrics.afterExit?.rawValue ?? "fresh", default: DurationHistogram()]
        .count(seconds: seconds)
    }
    resumeTimes.merge(metrics.resumeTimes)
    hangTimes.merge(metrics.hangTimes)
    foregroundSeconds += metrics.foregroundSeconds
    backgroundSeconds += metrics.backgroundSeconds
    backgroundAudioSeconds += metrics.backgroundAudioSeconds
    for (name, figures) in metrics.signposts
    where signposts[name] != nil || signposts.count < LaunchMetrics.maxSignpostNames {
      signposts[name, default: SignpostFigures()].merge(figures)
    }
    suspendedMemory.merge(metrics.suspendedMemory)
    if let written = metrics.bytesWritten { bytesWritten = (bytesWritten ?? 0) + written }
  }

  /// Adds a running launch's CPU time and peak memory so far, read from its cgroup.
  public mutating func addUsage(cpuSeconds seconds: Double, peakMemoryBytes peak: Int64) {
    measuredUsage = true
    cpuSeconds += seconds
    peakMemoryBytes = max(peakMemoryBytes, peak)
  }

  /// The payload of these totals: the launch, responsiveness and time families when a launch measured itself,
  /// CPU and memory when an exit was recorded.
  public func payload(timeStampBegin: String, timeStampEnd: String, metaData: PayloadMetaData) -> MetricPayload {
    var payload = MetricPayload(
      timeStampBegin: timeStampBegin, timeStampEnd: timeStampEnd, metaData: metaData, applicationExitMetrics: exits)
    if measuredLaunches {
      payload.applicationLaunchMetrics = AppLaunchMetricsPayload(
        histogrammedTimeToFirstDrawKey: MetricKitHistogram(timeToFirstDraw),
        histogrammedResumeTime: MetricKitHistogram(resumeTimes),
        jetsamHistogrammedTimeToFirstDrawByPreviousExit: timeToFirstDrawByPreviousExit.isEmpty
          ? nil : timeToFirstDrawByPreviousExit.mapValues(MetricKitHistogram.init))
      payload.applicationResponsivenessMetrics = AppResponsivenessMetricsPayload(
        histogrammedAppHangTime: MetricKitHistogram(hangTimes))
      payload.applicationTimeMetrics = AppTimeMetricsPayload(
        cumulativeForegroundTime: MetricKitMeasurement.format(foregroundSeconds, unit: "sec"),
        cumulativeBackgroundTime: MetricKitMeasurement.format(backgroundSeconds, unit: "sec"),
        cumulativeBackgroundAudioTime: MetricKitMeasurement.format(backgroundAudioSeconds, unit: "sec"))
    }
    if !signposts.isEmpty {
      payload.signpostMetrics = signposts.keys.sorted().map { SignpostMetricPayload(name: $0, signposts[$0]!) }
    }
    if records > 0 || measuredUsage {
      payload.cpuMetrics = CPUMetricsPayload(cumulativeCPUTime: MetricKitMeasurement.format(cpuSeconds, unit: "sec"))
      // MetricKit's kB is 1,000 bytes (NSUnitInformationStorage.kilobytes).
      payload.memoryMetrics = MemoryMetricsPayload(
        peakMemoryUsage: MetricKitMeasurement.format((Double(peakMemoryBytes) / 1000).rounded(), unit: "kB"))
    }
    if !suspendedMemory.isEmpty {
      // MXAverage's deviation is a bare number in the average's unit.
      let average = MetricKitAverage(
        averageValue: MetricKitMeasurement.format((suspendedMemory.averageBytes / 1000).rounded(), unit: "kB"),
        standardDeviation: (suspendedMemory.standardDeviationBytes / 1000).rounded(),
        sampleCount: suspendedMemory.samples)
      if payload.memoryMetrics == nil {
        // No peak was read (no record, no running reading): the peak was at least the average.
        let floor = (suspendedMemory.averageBytes / 1000).rounded()
        payload.memoryMetrics = MemoryMetricsPayload(peakMemoryUsage: MetricKitMeasurement.format(floor, unit: "kB"))
      }
      payload.memoryMetrics?.averageSuspendedMemory = average
    }
    if let bytesWritten {
      payload.diskIOMetrics = DiskIOMetricsPayload(
        cumulativeLogicalWrites: MetricKitMeasurement.format((Double(bytesWritten) / 1000).rounded(), unit: "kB"))
    }
    return payload
  }
}
