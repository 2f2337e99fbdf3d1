/// An app's cgroup counters read at a signpost's begin or end, for the cost of its interval (MetricKit's
/// `MXSignpostIntervalData`): the shell reads them when the policy asks (`readSignpostCounters`) and answers with
/// `signpostCountersRead`.
public struct SignpostCounters: Sendable, Equatable {
  /// CPU time of the app's whole cgroup so far, in seconds.
  public var cpuSeconds: Double
  /// Memory the cgroup is charged now, in bytes.
  public var memoryBytes: Int64
  /// Bytes written to storage since the launch (the disk-write monitor's accounting: ``DiskWriteSample``).
  public var bytesWritten: Int64

  public init(cpuSeconds: Double, memoryBytes: Int64, bytesWritten: Int64) {
    self.cpuSeconds = cpuSeconds
    self.memoryBytes = memoryBytes
    self.bytesWritten = bytesWritten
  }
}
