/// MetricKit's `MXDiskIOMetric`: the bytes the app's launches wrote to storage (the disk-write monitor's
/// accounting), over the launches counted.
public struct DiskIOMetricsPayload: Codable, Sendable, Equatable {
  public var cumulativeLogicalWrites: String
}
