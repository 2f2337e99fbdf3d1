/// The caps of one app's cgroup, as its launch spec carries them; `nil` means unlimited.
public struct AppLimits: Sendable, Equatable, Codable {
  /// The memory cap in bytes (v1 `memory.limit_in_bytes`, v2 `memory.max`).
  public var memoryBytes: Int64?
  /// The CPU cap in percent of one core: 100 = one full core, 50 = half a core, 200 = two cores.
  public var cpuPercent: Double?
  /// The cap on processes and threads (`pids.max`).
  public var pids: Int?

  public init(memoryBytes: Int64? = nil, cpuPercent: Double? = nil, pids: Int? = nil) {
    self.memoryBytes = memoryBytes
    self.cpuPercent = cpuPercent
    self.pids = pids
  }

  /// No caps at all.
  public static let unlimited = AppLimits()
}
