import JetsamCore

/// MetricKit's `MXSignpostMetric` as its JSON writes it: one signpost name's count, its intervals' durations, and
/// their CPU time, average memory and logical writes.
public struct SignpostMetricPayload: Codable, Sendable, Equatable {
  /// MetricKit's `MXSignpostIntervalData`.
  public struct IntervalData: Codable, Sendable, Equatable {
    public var histogrammedSignpostDurations: MetricKitHistogram
    /// Absent when no interval's counters were read at both ends.
    public var signpostCumulativeCPUTime: String?
    public var signpostAverageMemory: String?
    public var signpostCumulativeLogicalWrites: String?
  }

  public var signpostName: String
  /// The app protocol's signposts have no category: each is in ``category``.
  public var signpostCategory: String
  public var totalSignpostCount: Int
  public var signpostIntervalData: IntervalData

  /// The category of every signpost jetsam reports.
  public static let category = "app"

  /// The payload of `name`'s figures: CPU time in milliseconds, memory and writes in kB (1,000 bytes) as
  /// MetricKit's JSON writes them.
  public init(name: String, _ figures: SignpostFigures) {
    signpostName = name
    signpostCategory = Self.category
    totalSignpostCount = figures.totalCount
    let measured = figures.measuredIntervals > 0
    signpostIntervalData = IntervalData(
      histogrammedSignpostDurations: MetricKitHistogram(figures.durations),
      signpostCumulativeCPUTime: measured
        ? MetricKitMeasurement.format((figures.cpuSeconds * 1000).rounded(), unit: "ms") : nil,
      signpostAverageMemory: figures.averageMemoryBytes.map {
        MetricKitMeasurement.format(($0 / 1000).rounded(), unit: "kB")
      },
      signpostCumulativeLogicalWrites: measured
        ? MetricKitMeasurement.format((Double(figures.bytesWritten) / 1000).rounded(), unit: "kB") : nil)
  }
}
