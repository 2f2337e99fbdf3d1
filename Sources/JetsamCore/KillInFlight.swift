/// A kill decided and whose exit has not been seen yet: what it was for, the pressure when it was decided, and for
/// a jetsam kill the snapshot of every app taken then. It travels on the `kill` action, and the shell makes it
/// durable before the signal goes out (the kill journal, then the state file), so that a victim that dies while no
/// daemon runs is still recorded for the kill that ended it (MetricKit's reason, the level that caused it, the
/// snapshot), not as an unexplained exit.
public struct KillInFlight: Sendable, Equatable, Codable {
  public var kill: RequestedKill
  public var level: PressureLevel
  public var availableBytes: Int64
  /// A jetsam kill's snapshot of the apps (nil for other kills); their memory is filled in once the SIGKILL is out.
  public var snapshot: [SnapshotEntry]?

  public init(kill: RequestedKill, level: PressureLevel, availableBytes: Int64, snapshot: [SnapshotEntry]? = nil) {
    self.kill = kill
    self.level = level
    self.availableBytes = availableBytes
    self.snapshot = snapshot
  }
}
