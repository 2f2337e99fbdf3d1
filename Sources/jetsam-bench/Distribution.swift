/// A set of measurements and the order statistics the report prints.
///
/// Percentiles are nearest-rank (the smallest value with at least p % of the values at or below it), so they
/// are always a value that was measured; with 20 runs the p99 is the largest value, the p90 the second largest.
struct Distribution: Sendable {
  /// The values, ascending.
  let sorted: [Double]

  init(_ values: [Double]) { sorted = values.sorted() }

  var count: Int { sorted.count }

  /// The median (the mean of the two middle values for an even count); nil without values.
  var median: Double? {
    guard !sorted.isEmpty else { return nil }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// The nearest-rank `p`th percentile (0 < p ≤ 100); nil without values.
  func percentile(_ p: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
  }

  var p90: Double? { percentile(90) }
  var p99: Double? { percentile(99) }
  var max: Double? { sorted.last }
  var min: Double? { sorted.first }
  var sum: Double { sorted.reduce(0, +) }
}
