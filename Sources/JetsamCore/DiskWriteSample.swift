/// One reading of the bytes an app has written, taken for a `sampleDiskWrites` action.
public struct DiskWriteSample: Sendable, Equatable {
  public var app: String
  public var pid: Int32
  /// Bytes the app's processes have written to storage since its launch, as far as the counter knows (the cgroup's
  /// I/O accounting, or the sum over its processes' `/proc/PID/io`: see ``DiskWriteWatch``).
  public var bytesWritten: Int64

  public init(app: String, pid: Int32, bytesWritten: Int64) {
    self.app = app
    self.pid = pid
    self.bytesWritten = bytesWritten
  }
}
