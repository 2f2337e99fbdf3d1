import JetsamValues

/// The suspended-memory monitor's place in the policy: the moves it is told of, and the weights it gives back,
/// which go into the launch's metrics.
extension JetsamPolicy {
  /// App `name` moved from `from` to `next`.
  mutating func rewatchSuspendedMemory(_ name: String, from: LifecycleState, to next: LifecycleState, at: Instant) {
    // Only a suspension's start or end concerns the monitor; every other move (a batch of them included) passes
    // without a lookup.
    guard from == .suspended || next == .suspended, let index = lifecycle.apps.index(forKey: name) else { return }
    let pid = lifecycle.apps.values[index].process?.pid
    let weight = suspendedMemory.moved(
      name, pid: pid, from: from, to: next, interval: config.suspendedMemoryInterval, at: at)
    if let weight {
      lifecycle.apps[at: index].process?.metrics.suspendedMemory.hold(bytes: weight.bytes, for: weight.seconds)
    }
  }

  /// The readings that go with a suspension's stop (after it, so that they read the stopped app): its memory, and
  /// its written bytes where the disk-write monitor watches it (a suspended app writes nothing, so that reading is
  /// its total until it runs again).
  func readingsAtSuspension(_ name: String) -> [PolicyAction] {
    guard let pid = lifecycle.apps[name]?.process?.pid else { return [] }
    let ref = AppProcessRef(app: name, pid: pid)
    return [.sampleSuspendedMemory([ref])] + (diskWrites.isWatching(name) ? [.sampleDiskWrites([ref])] : [])
  }

  /// Readings came back: each that counts is counted in its launch's metrics, with the weight of the one it ends.
  mutating func suspendedMemorySampled(_ samples: [SuspendedMemorySample], at: Instant) -> [PolicyAction] {
    for sample in samples {
      guard let taken = suspendedMemory.sampled(sample, at: at) else { continue }
      // Changed in place: a copy of the process would copy its metrics.
      guard let index = lifecycle.apps.index(forKey: sample.app) else { continue }
      if let weight = taken.closed {
        lifecycle.apps[at: index].process?.metrics.suspendedMemory.hold(bytes: weight.bytes, for: weight.seconds)
      }
      lifecycle.apps[at: index].process?.metrics.suspendedMemory.countSample()
    }
    return []
  }
}
