/// The time-weighted average of an app's memory while suspended (MetricKit's `averageSuspendedMemory`, an
/// `MXAverage`): each reading holds from when it was taken until the next one, the resumption or the exit, and
/// counts for that long.
///
/// Kept as running sums (West's weighted algorithm), not readings: a launch suspended all day costs the same four
/// numbers as one suspended a second, and two averages (two launches, or the records of a period) merge exactly.
public struct SuspendedMemoryAverage: Codable, Hashable, Sendable {
  /// How many readings were taken while suspended (MetricKit's `sampleCount`).
  public var samples = 0
  /// How long the readings held, in seconds: the weight of the average.
  public var seconds = 0.0
  /// The time-weighted mean, in bytes.
  public var averageBytes = 0.0
  /// The sum of each reading's weight times its squared distance from the mean (bytes² · seconds): the variance
  /// times ``seconds``.
  public var weightedSquares = 0.0

  public init() {}

  /// Whether nothing was counted.
  public var isEmpty: Bool { samples == 0 && seconds == 0 }

  /// The time-weighted standard deviation, in bytes (0 with no weight).
  public var standardDeviationBytes: Double {
    seconds > 0 ? (max(0, weightedSquares) / seconds).squareRoot() : 0
  }

  /// Counts a reading taken (its weight comes when it stops holding: ``hold(bytes:for:)``).
  mutating func countSample() { samples += 1 }

  /// Adds `bytes` held for `heldSeconds`. With no weight yet, the average is the reading itself (a suspension
  /// ended the instant it was read still has an average).
  public mutating func hold(bytes: Int64, for heldSeconds: Double) {
    let weight = max(0, heldSeconds)
    let value = Double(bytes)
    let total = seconds + weight
    guard total > 0 else {
      averageBytes = value
      return
    }
    let delta = value - averageBytes
    averageBytes += delta * weight / total
    weightedSquares += weight * delta * (value - averageBytes)
    seconds = total
  }

  /// Adds another average (another launch's, or a record's): the pooled time-weighted mean and deviation.
  public mutating func merge(_ other: SuspendedMemoryAverage) {
    guard !other.isEmpty else { return }
    defer { samples += other.samples }
    guard !isEmpty else {
      self = SuspendedMemoryAverage(
        samples: 0, seconds: other.seconds, averageBytes: other.averageBytes, weightedSquares: other.weightedSquares)
      return
    }
    let total = seconds + other.seconds
    guard total > 0 else {
      averageBytes = (averageBytes + other.averageBytes) / 2
      return
    }
    let delta = other.averageBytes - averageBytes
    weightedSquares += other.weightedSquares + delta * delta * seconds * other.seconds / total
    averageBytes += delta * other.seconds / total
    seconds = total
  }

  init(samples: Int, seconds: Double, averageBytes: Double, weightedSquares: Double) {
    self.samples = samples
    self.seconds = seconds
    self.averageBytes = averageBytes
    self.weightedSquares = weightedSquares
  }
}
