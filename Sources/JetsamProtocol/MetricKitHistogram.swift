import JetsamCore

/// A histogram as MetricKit's JSON writes it (`MXHistogram`): the number of buckets, and each bucket by its index
/// as a string, with its start, end (measurements) and count. Only buckets with a count are written, as MetricKit
/// does.
public struct MetricKitHistogram: Codable, Sendable, Equatable {
  public struct Bucket: Codable, Sendable, Equatable {
    public var bucketStart: String
    public var bucketEnd: String
    public var bucketCount: Int
  }

  public var histogramNumBuckets: Int
  public var histogramValue: [String: Bucket]

  /// The durations of `histogram`, in milliseconds.
  public init(_ histogram: DurationHistogram) {
    histogramNumBuckets = histogram.buckets.count
    var value: [String: Bucket] = [:]
    for (index, bucket) in histogram.buckets.enumerated() {
      value[String(index)] = Bucket(
        bucketStart: MetricKitMeasurement.format(Double(bucket.startMilliseconds), unit: "ms"),
        bucketEnd: MetricKitMeasurement.format(Double(bucket.endMilliseconds), unit: "ms"),
        bucketCount: bucket.count)
    }
    histogramValue = value
  }

  /// How many values were counted in all.
  public var total: Int { histogramValue.values.reduce(0) { $0 + $1.bucketCount } }
}
