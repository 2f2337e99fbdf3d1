import JetsamValues

/// The device's pressure as jetsam sees it now: the fact a kill decided anywhere records (the level and the memory
/// available as it is decided, not those after the victim's memory came back).
struct DevicePressure: Sendable {
  /// The level in force.
  var level: PressureLevel
  /// The memory available at the last sample (0 before any).
  var availableBytes: Int64

  /// The decision to kill for `kill` under this pressure (with jetsam's `snapshot` for a jetsam kill).
  func decision(_ kill: RequestedKill, snapshot: [SnapshotEntry]? = nil) -> KillInFlight {
    KillInFlight(kill: kill, level: level, availableBytes: availableBytes, snapshot: snapshot)
  }
}
