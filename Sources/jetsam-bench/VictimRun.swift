/// One measured kill: every instant on CLOCK_MONOTONIC (ns).
///
/// - `mark`: the allocator's own stamp of the threshold crossing (jetsam-testapp `--mark-file`).
/// - `observedCrossing`: the first sample of the bench's sampler past the threshold (a cross-check of `mark`).
/// - `kill`: when the killer's log line about the SIGKILL was read (jetsamd writes it right after the signal,
///   earlyoom right before).
/// - `exit`: when the victim's pidfd reported its exit.
/// - `memoryBack`: the first sample at which the counter had dropped by 95 % of the victim's charge.
struct VictimRun: Sendable {
  var mark: UInt64
  var observedCrossing: UInt64?
  var kill: UInt64?
  var exit: UInt64?
  var memoryBack: UInt64?
  /// The allocator's achieved rate in MiB/s (from its `done:` line), when known.
  var achievedRate: Double?
  /// The whole chunks added to the computed `--mark-at` for this run.
  var correction = 0

  var toKill: Double? { kill.map { MonotonicTime.milliseconds(from: mark, to: $0) } }
  var toMemoryBack: Double? { memoryBack.map { MonotonicTime.milliseconds(from: mark, to: $0) } }
  var killToMemoryBack: Double? {
    guard let kill, let memoryBack else { return nil }
    return MonotonicTime.milliseconds(from: kill, to: memoryBack)
  }
  var toExit: Double? { exit.map { MonotonicTime.milliseconds(from: mark, to: $0) } }
  /// How far the allocator's mark lies after the crossing the sampler saw (positive: mark later).
  var markError: Double? { observedCrossing.map { MonotonicTime.milliseconds(from: $0, to: mark) } }

  /// The largest disagreement between the mark and the sampled crossing accepted at `rate` MiB/s: 1 ms plus a
  /// quarter of a chunk period. The mark normally lands within a few tenths of a millisecond of the sampled
  /// crossing (it is written right after the memset of the crossing chunk; the sampler reads every 250 µs); a
  /// larger gap means the allocator was preempted before stamping, or the charge model put the mark on a
  /// neighbouring chunk, and the run's times would be off by that much.
  static func markTolerance(rate: Int) -> Double { 1 + 0.25 * 1000 / Double(rate) }

  /// Whether the mark agrees with the sampled crossing (runs without a sampled crossing are kept).
  func markAgrees(rate: Int) -> Bool {
    guard let markError else { return true }
    return abs(markError) <= Self.markTolerance(rate: rate)
  }
}

/// The runs of one tool at one allocation rate, with the failures that produced no measurement.
struct VictimSeries: Sendable {
  let tool: String
  let rate: Int
  var runs: [VictimRun] = []
  /// Why runs were thrown away (e.g. "killed before the crossing (host memory moved)").
  var failures: [String] = []
  /// Runs left out because the allocator's mark disagreed with the sampled crossing (see ``VictimRun/markAgrees(rate:)``).
  var rejected: [VictimRun] = []

  /// Keeps `run` if its mark agrees with the sampled crossing, else sets it aside.
  mutating func add(_ run: VictimRun) {
    if run.markAgrees(rate: rate) { runs.append(run) } else { rejected.append(run) }
  }

  init(tool: String, rate: Int) {
    self.tool = tool
    self.rate = rate
  }

  var toKill: Distribution { Distribution(runs.compactMap(\.toKill)) }
  var toMemoryBack: Distribution { Distribution(runs.compactMap(\.toMemoryBack)) }
  var killToMemoryBack: Distribution { Distribution(runs.compactMap(\.killToMemoryBack)) }
  var toExit: Distribution { Distribution(runs.compactMap(\.toExit)) }
  var markError: Distribution { Distribution(runs.compactMap(\.markError)) }
  var achievedRate: Distribution { Distribution(runs.compactMap(\.achievedRate)) }
}
