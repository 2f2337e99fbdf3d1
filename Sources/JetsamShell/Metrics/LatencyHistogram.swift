import JetsamCore

/// A Prometheus histogram of durations in seconds: cumulative bucket counts, their sum and count.
struct LatencyHistogram {
  /// Upper bounds, in seconds: from 100 µs (jetsam's kills react in under a millisecond) to 5 s.
  static let bounds: [Double] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
  ]

  /// Observations at or below each bound (not yet cumulative).
  private(set) var counts = [Int](repeating: 0, count: LatencyHistogram.bounds.count)
  private(set) var sum = 0.0
  private(set) var count = 0

  mutating func observe(_ duration: Duration) {
    let seconds = max(0, duration.seconds)
    if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
    sum += seconds
    count += 1
  }

  /// `(le, cumulative count)` per bucket, `+Inf` last.
  var buckets: [(String, Int)] {
    var running = 0
    var out: [(String, Int)] = []
    for (bound, count) in zip(Self.bounds, counts) {
      running += count
      out.append((PrometheusText.format(bound), running))
    }
    out.append(("+Inf", count))
    return out
  }
}
