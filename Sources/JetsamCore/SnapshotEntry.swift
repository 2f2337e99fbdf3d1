/// One app in a jetsam snapshot, taken when a victim is chosen.
public struct SnapshotEntry: Codable, Hashable, Sendable {
  public var name: String
  public var pid: Int32
  public var band: Band
  /// Coarse state: `foreground`, `background`, `suspended`.
  public var state: CoarseState
  /// Memory charged to the app's cgroup at the kill (filled by the shell; 0 until then).
  public var memoryBytes: Int64
  /// Seconds since the app entered its current band.
  public var secondsInBand: Double

  public init(name: String, pid: Int32, band: Band, state: CoarseState, memoryBytes: Int64 = 0, secondsInBand: Double) {
    self.name = name
    self.pid = pid
    self.band = band
    self.state = state
    self.memoryBytes = memoryBytes
    self.secondsInBand = secondsInBand
  }
}
