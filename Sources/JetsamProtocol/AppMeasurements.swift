/// What the daemon measured of an app as it answered about it, beside the policy's status: the figures of its
/// cgroup, the time in its state by the daemon's clock, and whether the stop of its processes is still under way.
public struct AppMeasurements: Sendable, Equatable {
  /// Memory charged to the app's cgroup (0 when not running).
  public var memoryBytes: Int64
  /// The app's memory cap, if it runs with one.
  public var memoryLimitBytes: Int64?
  /// Seconds in its current state (0 for an app this daemon has not seen change state).
  public var stateSeconds: Double
  /// True while a suspended app's processes are told to stop and not all seen stopped yet (within the timeout).
  public var stopping: Bool

  /// Figures as measured; an app not running has none.
  public init(memoryBytes: Int64 = 0, memoryLimitBytes: Int64? = nil, stateSeconds: Double = 0, stopping: Bool = false)
  {
    self.memoryBytes = memoryBytes
    self.memoryLimitBytes = memoryLimitBytes
    self.stateSeconds = stateSeconds
    self.stopping = stopping
  }
}
