import JetsamValues

/// Suspended apps' memory for MetricKit's `averageSuspendedMemory`, a machine of its own: it decides when suspended
/// apps are read, the shell reads each app's cgroup usage (`sampleSuspendedMemory`, one `pread` each) and reports
/// them together (`suspendedMemorySampled`), and each reading's weight goes out as a ``Weight`` for the launch's
/// metrics, which are the records' to keep.
///
/// Rounds run (``PolicyConfig/suspendedMemoryInterval``) while any app is suspended, none otherwise, so a device
/// with no suspended app costs nothing; each app is also read once at its suspension (the reading that anchors its
/// average, asked for with the stop), without bringing the round forward for everyone (a suspension storm would
/// read every suspended app at each suspension: n² readings).
///
/// A reading holds until the next one, the resumption or the exit: the last stretch of a suspension counts at the
/// last reading's value (an app that is stopped does not allocate; only the kernel's reclaim lowers it).
struct SuspendedMemoryMonitor: Sendable {
  /// A held reading's share of the average: `bytes` over `seconds`.
  struct Weight: Equatable {
    var bytes: Int64
    var seconds: Double
  }

  /// A reading that counts, and the weight of the one it replaced, if one was held.
  struct Taken: Equatable {
    var closed: Weight?
  }

  /// The suspended apps and their processes: the last to leave ends the rounds at once (no deadline left behind),
  /// and a round reads these without a scan of every app.
  private var suspended: [String: Int32] = [:]
  /// Each suspended app's latest reading, not yet weighted.
  private var held: [String: HeldMemoryReading] = [:]
  /// When the next round reads every suspended app; nil while none is suspended.
  private(set) var nextRoundAt: Instant?

  /// App `name`'s latest reading not yet weighted, if it is suspended and was read.
  func heldReading(of name: String) -> HeldMemoryReading? { held[name] }

  /// App `name` (process `pid`) moved from `from` to `next`: a suspension starts the rounds if none run; leaving one
  /// gives the held reading its weight, returned.
  mutating func moved(
    _ name: String, pid: Int32?, from: LifecycleState, to next: LifecycleState, interval: Duration?, at: Instant
  ) -> Weight? {
    var weight: Weight?
    if from == .suspended, next != .suspended {
      weight = closeHeldReading(name, at: at)
      suspended[name] = nil
      if suspended.isEmpty { nextRoundAt = nil }
    }
    guard next == .suspended, from != .suspended, let pid else { return weight }
    suspended[name] = pid
    if nextRoundAt == nil, let interval { nextRoundAt = at.advanced(by: interval) }
    return weight
  }

  /// The round at a tick: every suspended app, and the next round `interval` later (none once no app is suspended).
  mutating func tick(at: Instant, interval: Duration?) -> [AppProcessRef] {
    guard let round = nextRoundAt, round <= at else { return [] }
    guard !suspended.isEmpty, let interval else {
      nextRoundAt = nil
      return []
    }
    nextRoundAt = at.advanced(by: interval)
    return suspended.map { AppProcessRef(app: $0.key, pid: $0.value) }.sorted { $0.app < $1.app }
  }

  /// A reading came back: a still-suspended app's held reading gets its weight and the new one holds from now. Nil
  /// when the reading is too late to count (the app left the suspension since).
  mutating func sampled(_ sample: SuspendedMemorySample, at: Instant) -> Taken? {
    guard suspended[sample.app] == sample.pid else { return nil }
    let closed = closeHeldReading(sample.app, at: at)
    held[sample.app] = HeldMemoryReading(at: at, bytes: sample.bytes)
    return Taken(closed: closed)
  }

  /// The held reading counts up to `at`, and holds no longer.
  private mutating func closeHeldReading(_ name: String, at: Instant) -> Weight? {
    guard let reading = held.removeValue(forKey: name) else { return nil }
    return Weight(bytes: reading.bytes, seconds: at.seconds(since: reading.at))
  }
}
