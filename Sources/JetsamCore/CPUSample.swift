/// One reading of an app's CPU time, taken for a `sampleCPU` action.
public struct CPUSample: Sendable, Equatable {
  public var app: String
  public var pid: Int32
  /// CPU time of the app's whole cgroup so far, in seconds.
  public var cpuSeconds: Double

  public init(app: String, pid: Int32, cpuSeconds: Double) {
    self.app = app
    self.pid = pid
    self.cpuSeconds = cpuSeconds
  }
}
