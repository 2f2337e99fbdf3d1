/// What the disk-write monitor measured of an app over its limit: the figures of a disk-write exception diagnostic.
public struct DiskWriteReport: Codable, Hashable, Sendable {
  /// Bytes written within the window (MetricKit's `writesCaused`).
  public var bytesWritten: Int64
  /// The window's length, and how much of it was sampled (less while the app has run for less).
  public var windowSeconds: Double
  public var sampledSeconds: Double
  /// The limit: bytes allowed within the window.
  public var limitBytes: Int64

  public init(bytesWritten: Int64, windowSeconds: Double, sampledSeconds: Double, limitBytes: Int64) {
    self.bytesWritten = bytesWritten
    self.windowSeconds = windowSeconds
    self.sampledSeconds = sampledSeconds
    self.limitBytes = limitBytes
  }
}
