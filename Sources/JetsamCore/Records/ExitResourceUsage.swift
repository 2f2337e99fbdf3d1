/// What an ended app's cgroup used, measured by the shell as it completes the record: memory at the kill or the
/// exit, the peak, the cap, and CPU time.
public struct ExitResourceUsage: Hashable, Sendable {
  /// Memory charged to the app's cgroup when it was killed or when its exit was seen.
  public var memoryBytes: Int64
  /// The highest memory charged to the app's cgroup in its life.
  public var peakMemoryBytes: Int64
  /// The app's memory cap, if it had one.
  public var memoryLimitBytes: Int64?
  /// CPU time used by the app's cgroup.
  public var cpuSeconds: Double

  /// Figures as the shell measured them; none before it does.
  public init(
    memoryBytes: Int64 = 0, peakMemoryBytes: Int64 = 0, memoryLimitBytes: Int64? = nil, cpuSeconds: Double = 0
  ) {
    self.memoryBytes = memoryBytes
    self.peakMemoryBytes = peakMemoryBytes
    self.memoryLimitBytes = memoryLimitBytes
    self.cpuSeconds = cpuSeconds
  }
}

extension ExitResourceUsage {
  /// The usage as a record's flat keys hold it.
  init(from record: KeyedDecodingContainer<ExitRecord.CodingKeys>) throws {
    self.init(
      memoryBytes: try record.decode(Int64.self, forKey: .memoryBytes),
      peakMemoryBytes: try record.decode(Int64.self, forKey: .peakMemoryBytes),
      memoryLimitBytes: try record.decodeIfPresent(Int64.self, forKey: .memoryLimitBytes),
      cpuSeconds: try record.decode(Double.self, forKey: .cpuSeconds))
  }

  /// Writes the usage into the record's flat keys.
  func encode(to record: inout KeyedEncodingContainer<ExitRecord.CodingKeys>) throws {
    try record.encode(memoryBytes, forKey: .memoryBytes)
    try record.encode(peakMemoryBytes, forKey: .peakMemoryBytes)
    try record.encodeIfPresent(memoryLimitBytes, forKey: .memoryLimitBytes)
    try record.encode(cpuSeconds, forKey: .cpuSeconds)
  }
}
