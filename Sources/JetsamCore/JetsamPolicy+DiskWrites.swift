import JetsamValues

/// The disk-write monitor's place in the policy: what it is told of the apps, and what its readings become (the
/// launch's total written, and the exception's diagnostic).
extension JetsamPolicy {
  /// Tells the monitor of app `name`'s process and limit: called at every state change.
  mutating func rewatchDiskWrites(_ name: String, at: Instant) {
    guard let index = lifecycle.apps.index(forKey: name), let pid = lifecycle.apps.values[index].process?.pid,
      let spawnedAt = lifecycle.apps.values[index].process?.spawnedAt
    else { return }
    let limit = lifecycle.apps.values[index].settings.diskWrites
    diskWrites.rewatch(name, pid: pid, spawnedAt: spawnedAt, limit: limit, apps: lifecycle.apps, at: at)
  }

  /// Readings came back: each counts into the launch's total, and a running app's writes over its window are
  /// judged against its limit.
  mutating func diskWritesSampled(_ samples: [DiskWriteSample], at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for sample in samples {
      guard let total = diskWrites.add(sample, at: at) else { continue }
      lifecycle.apps[sample.app]?.process?.metrics.bytesWritten = total
      // A reading taken at a suspension counts (it anchors the launch's total) but is judged when the app runs
      // again: no diagnostic of a stopped app.
      guard diskWrites.isSampled(sample.app, apps: lifecycle.apps), let report = diskWrites.judge(sample.app, at: at)
      else { continue }
      actions.append(.diagnose(app: sample.app, pid: sample.pid, .diskWriteException(report)))
    }
    return actions
  }
}
