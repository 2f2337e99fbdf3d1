import JetsamValues

/// Suspended apps' memory for MetricKit's `averageSuspendedMemory`: the policy decides when it is read
/// (``SuspendedMemorySampling``), the shell reads each app's cgroup usage (`sampleSuspendedMemory`, one `pread`
/// each) and reports them together (`suspendedMemorySampled`); the average is kept in the launch's metrics.
///
/// A reading holds until the next one, the resumption or the exit: the last stretch of a suspension counts at the
/// last reading's value (an app that is stopped does not allocate; only the kernel's reclaim lowers it).
extension JetsamPolicy {
  /// An app moved from `from` to `next`: a suspension starts the rounds if none run; leaving one gives the held
  /// reading its weight.
  mutating func rewatchSuspendedMemory(_ name: String, from: LifecycleState, to next: LifecycleState, at: Instant) {
    if from == .suspended, next != .suspended {
      closeHeldReading(name, at: at)
      suspendedMemorySampling.suspended = max(0, suspendedMemorySampling.suspended - 1)
      if suspendedMemorySampling.suspended == 0 { suspendedMemorySampling.nextRoundAt = nil }
    }
    guard next == .suspended, from != .suspended else { return }
    suspendedMemorySampling.suspended += 1
    if suspendedMemorySampling.nextRoundAt == nil, let interval = config.suspendedMemoryInterval {
      suspendedMemorySampling.nextRoundAt = at.advanced(by: interval)
    }
  }

  /// The readings that go with a suspension's stop (after it, so that they read the stopped app): its memory, and
  /// its written bytes where the disk-write monitor watches it (a suspended app writes nothing, so that reading is
  /// its total until it runs again).
  func readingsAtSuspension(_ name: String) -> [PolicyAction] {
    guard let process = trackedApps[name]?.process else { return [] }
    let ref = AppProcessRef(app: name, pid: process.pid)
    return [.sampleSuspendedMemory([ref])] + (process.diskWriteWatch == nil ? [] : [.sampleDiskWrites([ref])])
  }

  /// The held reading counts up to `at`, and holds no longer.
  private mutating func closeHeldReading(_ name: String, at: Instant) {
    guard let held = trackedApps[name]?.process?.heldMemory else { return }
    trackedApps[name]?.process?.heldMemory = nil
    trackedApps[name]?.process?.metrics.suspendedMemory.hold(bytes: held.bytes, for: at.seconds(since: held.at))
  }

  /// The round at a tick: every suspended app's memory, and the next round an interval later (none once no app is
  /// suspended).
  mutating func suspendedMemoryTick(at: Instant) -> [PolicyAction] {
    guard let round = suspendedMemorySampling.nextRoundAt, round <= at else { return [] }
    var refs: [AppProcessRef] = []
    for index in trackedApps.values.indices where trackedApps.values[index].state == .suspended {
      guard let pid = trackedApps.values[index].process?.pid else { continue }
      refs.append(AppProcessRef(app: trackedApps.values[index].name, pid: pid))
    }
    guard !refs.isEmpty, let interval = config.suspendedMemoryInterval else {
      suspendedMemorySampling.nextRoundAt = nil
      return []
    }
    refs.sort { $0.app < $1.app }
    suspendedMemorySampling.nextRoundAt = at.advanced(by: interval)
    return [.sampleSuspendedMemory(refs)]
  }

  /// Readings came back: each still-suspended app's held reading gets its weight and the new one holds from now.
  /// A reading of an app that has left the suspension since is too late to count.
  mutating func suspendedMemorySampled(_ samples: [SuspendedMemorySample], at: Instant) -> [PolicyAction] {
    for sample in samples {
      guard let index = trackedApps.index(forKey: sample.app), trackedApps.values[index].state == .suspended,
        trackedApps.values[index].process?.pid == sample.pid
      else { continue }
      closeHeldReading(sample.app, at: at)
      trackedApps[at: index].process?.metrics.suspendedMemory.countSample()
      trackedApps[at: index].process?.heldMemory = HeldMemoryReading(at: at, bytes: sample.bytes)
    }
    return []
  }
}
