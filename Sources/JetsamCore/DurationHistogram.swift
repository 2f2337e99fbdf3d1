/// Durations counted into fixed buckets, the way MetricKit's histograms report them: a launch keeps counts, not
/// every value, so that an app that comes and goes all day costs the same memory and state-file bytes as one that
/// does not.
///
/// Each bucket names its own edges (in milliseconds), so that records written under other edges still merge: two
/// histograms add up bucket by bucket start. The edges are ``edgesMilliseconds`` (README, "Metric payloads").
public struct DurationHistogram: Codable, Hashable, Sendable {
  /// One bucket: durations from `startMilliseconds` (inclusive) to `endMilliseconds` (exclusive), and how many.
  public struct Bucket: Codable, Hashable, Sendable {
    public var startMilliseconds: Int
    public var endMilliseconds: Int
    public var count: Int

    public init(startMilliseconds: Int, endMilliseconds: Int, count: Int) {
      self.startMilliseconds = startMilliseconds
      self.endMilliseconds = endMilliseconds
      self.count = count
    }
  }

  /// The bucket edges: finer where launches, resumes and hangs usually fall (iOS counts hangs from 250 ms), up
  /// to the two minutes no watchdog allows by default. A longer duration is counted in the last bucket.
  public static let edgesMilliseconds = [0, 50, 100, 250, 500, 1000, 2000, 5000, 10000, 20000, 60000, 120_000]

  /// The non-empty buckets, by start.
  public private(set) var buckets: [Bucket] = []

  public init(buckets: [Bucket] = []) {
    for bucket in buckets { add(bucket) }
  }

  /// Whether nothing was counted.
  public var isEmpty: Bool { buckets.isEmpty }

  /// How many durations were counted.
  public var total: Int { buckets.reduce(0) { $0 + $1.count } }

  /// Counts one duration of `seconds` (a negative one, which a clock cannot give, counts as zero).
  public mutating func count(seconds: Double) {
    let milliseconds = max(0, seconds * 1000)
    let edges = Self.edgesMilliseconds
    var index = edges.count - 2
    for i in 0..<(edges.count - 1) where milliseconds < Double(edges[i + 1]) {
      index = i
      break
    }
    add(Bucket(startMilliseconds: edges[index], endMilliseconds: edges[index + 1], count: 1))
  }

  /// Adds every bucket of `other`.
  public mutating func merge(_ other: DurationHistogram) {
    for bucket in other.buckets { add(bucket) }
  }

  private mutating func add(_ bucket: Bucket) {
    guard bucket.count > 0 else { return }
    if let i = buckets.firstIndex(where: { $0.startMilliseconds == bucket.startMilliseconds }) {
      buckets[i].count += bucket.count
      buckets[i].endMilliseconds = max(buckets[i].endMilliseconds, bucket.endMilliseconds)
    } else {
      let at = buckets.firstIndex { $0.startMilliseconds > bucket.startMilliseconds } ?? buckets.endIndex
      buckets.insert(bucket, at: at)
    }
  }

  public init(from decoder: any Decoder) throws {
    self.init(buckets: try decoder.singleValueContainer().decode([Bucket].self))
  }

  /// Written as the array of its buckets.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(buckets)
  }
}
