import JetsamValues

/// The disk-write monitor, a machine of its own: which apps are watched, how often their counters are read, and when
/// one has written more than its limit within the trailing window (MetricKit's disk-write exception, non-fatal).
///
/// The shell only reads counters when asked (`sampleDiskWrites`, on the cadence this sets, only while some running
/// app is watched) and reports them back (`diskWritesSampled`). It owns the watches and the schedule; whether an app
/// runs it reads from the lifecycle's ``AppTable``, never changing it.
struct DiskWriteMonitor: Sendable {
  /// A watched process: the watch belongs to it and goes with it.
  private struct Watched: Sendable {
    var pid: Int32
    var watch: DiskWriteWatch
  }

  private var watches: [String: Watched] = [:]
  /// When the next round reads the running watched apps; nil while none runs.
  private(set) var nextRoundAt: Instant?

  /// Whether app `name`'s current process is watched.
  func isWatching(_ name: String) -> Bool { watches[name] != nil }

  /// Whether app `name`'s counter is read at the next round: it is watched and runs (a suspended app writes nothing;
  /// one being killed is past judging).
  func isSampled(_ name: String, apps: borrowing AppTable) -> Bool {
    guard watches[name] != nil, !apps.isKillRequested(name) else { return false }
    switch apps.state(of: name) {
    case .foregroundActive, .foregroundInactive, .background: return true
    case .launching, .suspended, .notRunning, .terminated, nil: return false
    }
  }

  /// Starts the watch of app `name`'s process `pid` once it has a limit (from its spawn: the counters start at zero
  /// there), and makes sure a round is due while it runs: called at every state change.
  mutating func rewatch(
    _ name: String, pid: Int32, spawnedAt: Instant, limit: DiskWriteLimit?, apps: borrowing AppTable, at: Instant
  ) {
    if watches[name]?.pid != pid, let limit {
      watches[name] = Watched(pid: pid, watch: DiskWriteWatch(limit: limit, since: spawnedAt))
    }
    guard isSampled(name, apps: apps), let interval = watches[name]?.watch.limit.sampleInterval else { return }
    // The rounds keep their cadence unless this app needs a finer one.
    let due = at.advanced(by: interval)
    if nextRoundAt.map({ $0 > due }) ?? true { nextRoundAt = due }
  }

  /// App `name`'s process ended: its watch goes with it.
  mutating func forget(_ name: String) { watches.removeValueReleasingStorage(forKey: name) }

  /// The round at a tick: every running watched app's counter, and the next round at the finest cadence among them
  /// (none while no app is sampled, so an idle or suspended device costs nothing).
  mutating func tick(at: Instant, apps: borrowing AppTable) -> [AppProcessRef] {
    guard let due = nextRoundAt, due <= at else { return [] }
    var sampled: [AppProcessRef] = []
    var interval: Duration?
    for (name, entry) in watches where isSampled(name, apps: apps) {
      sampled.append(AppProcessRef(app: name, pid: entry.pid))
      let own = entry.watch.limit.sampleInterval
      if interval.map({ own < $0 }) ?? true { interval = own }
    }
    guard let interval else {
      nextRoundAt = nil
      return []
    }
    sampled.sort { $0.app < $1.app }
    nextRoundAt = at.advanced(by: interval)
    return sampled
  }

  /// Takes a reading of the watched process `sample` names, and returns the launch's total written so far (the
  /// watch's newest reading: it never lets a sum over processes fall); nil if no watch is its.
  mutating func add(_ sample: DiskWriteSample, at: Instant) -> Int64? {
    guard watches[sample.app]?.pid == sample.pid else { return nil }
    watches[sample.app]?.watch.add(at: at, bytes: sample.bytesWritten)
    return watches[sample.app]?.watch.points.last?.bytes
  }

  /// Over the limit: the exception's report, at most one per window (iOS reports an app once for a stretch of heavy
  /// writing, not at every reading of it).
  mutating func judge(_ name: String, at: Instant) -> DiskWriteReport? {
    guard let watch = watches[name]?.watch, let usage = watch.usage(), usage.bytes > watch.limit.bytes else {
      return nil
    }
    if let last = watch.exceptionAt, at < last.advanced(by: watch.limit.window) { return nil }
    watches[name]?.watch.exceptionAt = at
    return DiskWriteReport(
      bytesWritten: usage.bytes, windowSeconds: watch.limit.window.seconds, sampledSeconds: usage.sampled.seconds,
      limitBytes: watch.limit.bytes)
  }
}
