import JetsamValues

/// The disk-write monitor's place in the policy: what it is told of the apps, and what its readings become (the
/// launch's total written, and the exception's diagnostic).
extension JetsamPolicy {
  /// Tells the monitor of app `name`'s process and limit: called at every state change.
  mutating func rewatchDiskWrites(_ name: String, at: Instant) {
    guard let index = trackedApps.index(forKey: name), let pid = trackedApps.values[index].process?.pid,
      let spawnedAt = trackedApps.values[index].process?.spawnedAt
    else { return }
    let limit = trackedApps.values[index].settings.diskWrites
    diskWrites.rewatch(name, pid: pid, spawnedAt: spawnedAt, limit: limit, apps: trackedApps, at: at)
  }

  /// Readings came back: each counts into the launch's total, and a running app's writes over its window are
  /// judged against its limit.
  mutating func diskWritesSampled(_ samples: [DiskWriteSample], at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for sample in samples {
      guard let total = diskWrites.add(sample, at: at) else { continue }
      trackedApps[sample.app]?.process?.metrics.bytesWritten = total
      // A reading taken at a suspension counts (it anchors the launch's total) but is judged when the app runs
      // again: no diagnostic of a stopped app.
      guard diskWrites.isSampled(sample.app, apps: trackedApps), let report = diskWrites.judge(sample.app, at: at)
      else { continue }
      actions.append(.diagnose(app: sample.app, pid: sample.pid, .diskWriteException(report)))
    }
    return actions
  }
}
