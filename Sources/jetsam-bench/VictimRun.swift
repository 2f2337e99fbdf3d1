import JetsamDaemonProcess
import JetsamTestKit

/// One measured kill: every instant on CLOCK_MONOTONIC (ns).
///
/// - `crossing`: the reference instant of the threshold crossing, from ``crossingSource``.
/// - `allocatorMark`: the allocator's own stamp of the crossing (jetsam-testapp `--mark-file`).
/// - `sampledCrossing`: the first reading of the bench's 250 µs sampler past the threshold.
/// - `kill`: jetsamd: the SIGKILL instant it stamps in the victim's exit record (`killSignalledNanoseconds`, right
///   after the signal); earlyoom: when its log line about the SIGKILL was read (printed right before the signal).
/// - `exit`: when the victim's pidfd reported its exit.
/// - `memoryBack`: the first sample at which the counter had dropped by 95 % of the victim's charge.
struct VictimRun: Sendable {
  /// Where the reference crossing instant comes from.
  enum CrossingSource: Sendable {
    /// The allocator's mark (jetsamd's device counter moves only with the allocator, so the allocator knows when it
    /// crosses); checked against the sampled crossing.
    case allocatorMark
    /// The sampled crossing (earlyoom's host MemAvailable also moves with everything else on the machine, which the
    /// allocator cannot know about).
    case sampledCounter
  }

  var crossingSource: CrossingSource
  var allocatorMark: UInt64
  var sampledCrossing: UInt64?
  var kill: UInt64?
  var exit: UInt64?
  var memoryBack: UInt64?
  /// The allocator's achieved rate in MiB/s (from its `done:` line), when known.
  var achievedRate: Double?

  init(crossingSource: CrossingSource, allocatorMark: UInt64, sampledCrossing: UInt64?) {
    self.crossingSource = crossingSource
    self.allocatorMark = allocatorMark
    self.sampledCrossing = sampledCrossing
  }

  /// The reference crossing instant.
  var crossing: UInt64 {
    switch crossingSource {
    case .allocatorMark: allocatorMark
    case .sampledCounter: sampledCrossing ?? allocatorMark
    }
  }

  var toKill: Double? { kill.map { MonotonicTime.milliseconds(from: crossing, to: $0) } }
  /// From the sampled crossing (the same reference for every tool) to the kill.
  var sampledToKill: Double? {
    guard let sampledCrossing, let kill else { return nil }
    return MonotonicTime.milliseconds(from: sampledCrossing, to: kill)
  }
  var toMemoryBack: Double? { memoryBack.map { MonotonicTime.milliseconds(from: crossing, to: $0) } }
  var killToMemoryBack: Double? {
    guard let kill, let memoryBack else { return nil }
    return MonotonicTime.milliseconds(from: kill, to: memoryBack)
  }
  var toExit: Double? { exit.map { MonotonicTime.milliseconds(from: crossing, to: $0) } }
  /// How far the allocator's mark lies after the sampled crossing (positive: mark later).
  var markError: Double? { sampledCrossing.map { MonotonicTime.milliseconds(from: $0, to: allocatorMark) } }

  /// The largest disagreement between the mark and the sampled crossing accepted at `rate` MiB/s: 1 ms plus a
  /// quarter of a chunk period. The mark normally lands within a few tenths of a millisecond of the sampled
  /// crossing (it is written right after the memset of the crossing chunk; the sampler reads every 250 µs); a
  /// larger gap means the allocator was preempted before stamping, or the charge model put the mark on a
  /// neighbouring chunk, and the run's times would be off by that much.
  static func markTolerance(rate: Int) -> Double { 1 + 0.25 * 1000 / Double(rate) }

  /// Whether the run's reference crossing can be trusted: a sampled crossing always; an allocator mark when it
  /// agrees with the sampled crossing (or there is none to compare with).
  func crossingTrusted(rate: Int) -> Bool {
    guard crossingSource == .allocatorMark, let markError else { return true }
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
  /// Runs left out because the allocator's mark disagreed with the sampled crossing.
  var rejected: [VictimRun] = []

  init(tool: String, rate: Int) {
    self.tool = tool
    self.rate = rate
  }

  /// Keeps `run` if its crossing can be trusted, else sets it aside.
  mutating func add(_ run: VictimRun) {
    if run.crossingTrusted(rate: rate) { runs.append(run) } else { rejected.append(run) }
  }

  var toKill: Distribution { Distribution(runs.compactMap(\.toKill)) }
  var sampledToKill: Distribution { Distribution(runs.compactMap(\.sampledToKill)) }
  var toMemoryBack: Distribution { Distribution(runs.compactMap(\.toMemoryBack)) }
  var killToMemoryBack: Distribution { Distribution(runs.compactMap(\.killToMemoryBack)) }
  var toExit: Distribution { Distribution(runs.compactMap(\.toExit)) }
  var markError: Distribution { Distribution(runs.compactMap(\.markError)) }
  var achievedRate: Distribution { Distribution(runs.compactMap(\.achievedRate)) }
}
