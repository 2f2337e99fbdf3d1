extension TrackedApp {
  /// What a successor daemon needs to adopt this app's running process (``JetsamPolicy/adopt(_:at:)`` takes it back):
  /// the one form the policy's state leaves it in, so that no one else copies its fields. Nil when no process runs.
  var saved: AdoptedApp? {
    guard state.isRunning, let pid, let spawnedAt else { return nil }
    var adopted = AdoptedApp(
      name: name, pid: pid, launch: launch, state: state, bandFloor: bandFloor, stateEnteredAt: stateEnteredAt,
      bandEnteredAt: bandEnteredAt, spawnedAt: spawnedAt)
    adopted.summary = summary
    adopted.previousDigest = previousDigest
    adopted.savedDigest = savedDigest
    adopted.restoredDigest = restoredDigest
    adopted.savedAt = savedAt
    adopted.savedValidUntil = savedAt.flatMap { at in savedValidFor.map { at.advanced(by: $0) } }
    adopted.resumption = resumption
    adopted.awaySince = awaySince
    adopted.restorationDeadline = restorationDeadline
    if restorationLost { adopted.restorationLost = true }
    adopted.killInFlight = killInFlight
    return adopted
  }
}

extension JetsamPolicy {
  /// Every running app as a successor daemon adopts it, by name.
  public var savedApps: [AdoptedApp] { trackedApps.keys.sorted().compactMap { trackedApps[$0]!.saved } }
}
