/// What one signpost name measured (MetricKit's `MXSignpostMetric`): how many times it was passed, how long its
/// intervals took, and what they cost.
///
/// Costs are the differences of the cgroup's counters between an interval's begin and end, so they are the whole
/// app's during the interval (as MetricKit's are the process's). Only intervals whose counters were read at both
/// ends count in them (``measuredIntervals``); every ended interval counts in the durations.
public struct SignpostFigures: Codable, Hashable, Sendable {
  /// Intervals ended and `event` signposts passed.
  public var totalCount = 0
  /// Each ended interval's duration, from its `begin` line to its `end` line.
  public var durations = DurationHistogram()
  /// Intervals whose counters were read at both ends.
  public var measuredIntervals = 0
  /// CPU time of the measured intervals, in seconds.
  public var cpuSeconds = 0.0
  /// The sum over the measured intervals of the mean of the memory at their begin and end, in bytes: divided by
  /// ``measuredIntervals`` it is the average memory (kept as a sum so that launches add up).
  public var memoryBytesSum = 0.0
  /// Bytes written during the measured intervals.
  public var bytesWritten: Int64 = 0

  public init() {}

  /// The average memory during the measured intervals, in bytes; nil if none was measured.
  public var averageMemoryBytes: Double? {
    measuredIntervals > 0 ? memoryBytesSum / Double(measuredIntervals) : nil
  }

  /// Counts the cost of one interval from its counters at `begin` and `end` (a counter that went backwards, as a
  /// counter summed over processes does when one ends unreaped, adds nothing).
  mutating func addCost(from begin: SignpostCounters, to end: SignpostCounters) {
    measuredIntervals += 1
    cpuSeconds += max(0, end.cpuSeconds - begin.cpuSeconds)
    memoryBytesSum += (Double(begin.memoryBytes) + Double(end.memoryBytes)) / 2
    bytesWritten += max(0, end.bytesWritten - begin.bytesWritten)
  }

  /// Adds another launch's figures for the same name.
  public mutating func merge(_ other: SignpostFigures) {
    totalCount += other.totalCount
    durations.merge(other.durations)
    measuredIntervals += other.measuredIntervals
    cpuSeconds += other.cpuSeconds
    memoryBytesSum += other.memoryBytesSum
    bytesWritten += other.bytesWritten
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount) ?? 0
    durations = try container.decodeIfPresent(DurationHistogram.self, forKey: .durations) ?? DurationHistogram()
    measuredIntervals = try container.decodeIfPresent(Int.self, forKey: .measuredIntervals) ?? 0
    cpuSeconds = try container.decodeIfPresent(Double.self, forKey: .cpuSeconds) ?? 0
    memoryBytesSum = try container.decodeIfPresent(Double.self, forKey: .memoryBytesSum) ?? 0
    bytesWritten = try container.decodeIfPresent(Int64.self, forKey: .bytesWritten) ?? 0
  }
}
