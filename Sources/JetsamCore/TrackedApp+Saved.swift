extension TrackedApp {
  /// What a successor daemon needs to adopt this app's running process (``JetsamPolicy/adopt(_:at:)`` takes it back):
  /// the one form the policy's state leaves it in, so that no one else copies its fields. Nil when no process runs.
  var saved: AdoptedApp? {
    guard state.isRunning, let process else { return nil }
    var adopted = AdoptedApp(
      name: name, pid: process.pid, launch: launch, state: state, bandFloor: settings.bandFloor,
      stateEnteredAt: stateEnteredAt, bandEnteredAt: bandEnteredAt, spawnedAt: process.spawnedAt)
    adopted.summary = summary
    adopted.previousDigest = process.restoration.previousDigest
    adopted.savedDigest = process.restoration.savedDigest
    adopted.restoredDigest = process.restoration.restoredDigest
    adopted.savedAt = process.restoration.savedAt
    adopted.savedValidUntil = process.restoration.savedValidUntil
    adopted.resumption = process.restoration.resumption
    adopted.awaySince = process.away?.since
    adopted.restorationDeadline = process.restoration.deadline
    if process.restoration.lost { adopted.restorationLost = true }
    adopted.killInFlight = process.killInFlight
    return adopted
  }
}

extension JetsamPolicy {
  /// Every running app as a successor daemon adopts it, by name.
  public var savedApps: [AdoptedApp] { trackedApps.sorted { $0.key < $1.key }.compactMap(\.value.saved) }
}
