/// A kill that was sent and whose exit has not been seen yet: what it was for, and the pressure when it was
/// decided. Saved in the state file, so that a victim that dies while no daemon runs is still recorded for the
/// kill that ended it (MetricKit's reason, the level that caused it), not as an unexplained exit.
public struct KillInFlight: Sendable, Equatable, Codable {
  public var kill: RequestedKill
  public var level: PressureLevel
  public var availableBytes: Int64

  public init(kill: RequestedKill, level: PressureLevel, availableBytes: Int64) {
    self.kill = kill
    self.level = level
    self.availableBytes = availableBytes
  }
}
