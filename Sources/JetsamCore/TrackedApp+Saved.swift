extension TrackedApp {
  /// What a successor daemon adopts of this app (``JetsamPolicy/adopt(_:at:)`` takes it back): its status, the one
  /// form the policy's state leaves it in, so that no one else copies its fields. Nil when no process runs.
  var saved: AppStatus? {
    guard state.isRunning, process != nil else { return nil }
    var saved = status
    // Not part of the saved form: a successor learns it again from the app (its hello, its answers).
    saved.speaksProtocol = false
    return saved
  }
}

extension JetsamPolicy {
  /// Every running app as a successor daemon adopts it, by name.
  public var savedApps: [AppStatus] { lifecycle.apps.keys.sorted().compactMap { lifecycle.apps[$0]?.saved } }
}
