import JetsamValues

/// The disk-write monitor: which apps are watched, how often their counters are read, and when one has written
/// more than its limit within the trailing window (MetricKit's disk-write exception, non-fatal).
///
/// The shell only reads counters when asked (`sampleDiskWrites`, on the cadence ``nextDiskWriteSampleAt`` sets,
/// only while some running app is watched) and reports them back (`diskWritesSampled`); every judgement is here.
extension JetsamPolicy {
  /// Whether the app's counter is read at the next round: it has a watch and runs (a suspended app writes nothing;
  /// one being killed is past judging).
  func isDiskWriteSampled(_ app: borrowing TrackedApp) -> Bool {
    guard let process = app.process, process.diskWriteWatch != nil, process.requestedKill == nil else { return false }
    switch app.state {
    case .foregroundActive, .foregroundInactive, .background: return true
    case .launching, .suspended, .notRunning, .terminated: return false
    }
  }

  /// Starts app `name`'s watch once it has a process and a limit (from its spawn: the counters start at zero
  /// there), and makes sure a round is due while it runs: called at every state change.
  mutating func rewatchDiskWrites(_ name: String, at: Instant) {
    guard let index = trackedApps.index(forKey: name), let process = trackedApps.values[index].process else { return }
    if process.diskWriteWatch == nil, let limit = trackedApps.values[index].settings.diskWrites {
      trackedApps[at: index].process?.diskWriteWatch = DiskWriteWatch(limit: limit, since: process.spawnedAt)
    }
    guard isDiskWriteSampled(trackedApps.values[index]),
      let interval = trackedApps.values[index].process?.diskWriteWatch?.limit.sampleInterval
    else { return }
    // The rounds keep their cadence unless this app needs a finer one.
    let due = at.advanced(by: interval)
    if nextDiskWriteSampleAt.map({ $0 > due }) ?? true { nextDiskWriteSampleAt = due }
  }

  /// The sampling round at a tick: asks for every running watched app's counter, and sets the next round at the
  /// finest cadence among them (none while no app is sampled, so an idle or suspended device costs nothing).
  mutating func diskWriteSamplingTick(at: Instant) -> [PolicyAction] {
    guard let due = nextDiskWriteSampleAt, due <= at else { return [] }
    var sampled: [AppProcessRef] = []
    var interval: Duration?
    for index in trackedApps.values.indices where isDiskWriteSampled(trackedApps.values[index]) {
      let process = trackedApps.values[index].process!
      sampled.append(AppProcessRef(app: trackedApps.values[index].name, pid: process.pid))
      let own = process.diskWriteWatch!.limit.sampleInterval
      if interval.map({ own < $0 }) ?? true { interval = own }
    }
    guard let interval else {
      nextDiskWriteSampleAt = nil
      return []
    }
    sampled.sort { $0.app < $1.app }
    nextDiskWriteSampleAt = at.advanced(by: interval)
    return [.sampleDiskWrites(sampled)]
  }

  /// Readings came back: each watched app's writes over its window are judged against its limit.
  mutating func diskWritesSampled(_ samples: [DiskWriteSample], at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for sample in samples {
      guard trackedApps[sample.app]?.process?.pid == sample.pid,
        trackedApps[sample.app]?.process?.diskWriteWatch != nil
      else { continue }
      trackedApps[sample.app]?.process?.diskWriteWatch?.add(at: at, bytes: sample.bytesWritten)
      // The launch's total is the watch's newest reading: the watch never lets a sum over processes fall.
      let total = trackedApps[sample.app]?.process?.diskWriteWatch?.points.last?.bytes
      trackedApps[sample.app]?.process?.metrics.bytesWritten = total
      // A reading taken at a suspension counts (it anchors the launch's total) but is judged when the app runs
      // again: no diagnostic of a stopped app.
      if let index = trackedApps.index(forKey: sample.app), isDiskWriteSampled(trackedApps.values[index]) {
        actions += judgeDiskWrites(sample.app, at: at)
      }
    }
    return actions
  }

  /// Over the limit: a disk-write exception diagnostic, at most one per window (iOS reports an app once for a
  /// stretch of heavy writing, not at every reading of it).
  private mutating func judgeDiskWrites(_ name: String, at: Instant) -> [PolicyAction] {
    guard let process = trackedApps[name]?.process, let watch = process.diskWriteWatch, let usage = watch.usage(),
      usage.bytes > watch.limit.bytes
    else { return [] }
    if let last = watch.exceptionAt, at < last.advanced(by: watch.limit.window) { return [] }
    trackedApps[name]?.process?.diskWriteWatch?.exceptionAt = at
    let report = DiskWriteReport(
      bytesWritten: usage.bytes, windowSeconds: watch.limit.window.seconds, sampledSeconds: usage.sampled.seconds,
      limitBytes: watch.limit.bytes)
    return [.diagnose(app: name, pid: process.pid, .diskWriteException(report))]
  }
}
