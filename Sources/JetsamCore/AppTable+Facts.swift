import JetsamValues

/// What the machines beside the lifecycle may read of the apps: their states and whether a kill was asked, read in
/// place (a copy of an app would retain each of its fields). They never change the table.
extension AppTable {
  /// The state of app `name`; nil for an app not tracked.
  func state(of name: String) -> LifecycleState? {
    guard let index = index(forKey: name) else { return nil }
    return values[index].state
  }

  /// Whether a kill was asked for app `name`'s current process.
  func isKillRequested(_ name: String) -> Bool {
    guard let index = index(forKey: name) else { return false }
    return values[index].process?.killInFlight != nil
  }
}
