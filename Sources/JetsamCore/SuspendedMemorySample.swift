/// One reading of a suspended app's memory (its cgroup's usage), taken for a `sampleSuspendedMemory` action.
public struct SuspendedMemorySample: Sendable, Equatable {
  public var app: String
  public var pid: Int32
  /// The memory charged to the app's cgroup, in bytes.
  public var bytes: Int64

  public init(app: String, pid: Int32, bytes: Int64) {
    self.app = app
    self.pid = pid
    self.bytes = bytes
  }
}
