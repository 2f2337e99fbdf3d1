/// How much an app may write to storage: at most `bytes` in any trailing `window`.
///
/// iOS's figure is 1 GB in 24 hours: past it MetricKit delivers a disk-write exception diagnostic
/// (`MXDiskWriteExceptionDiagnostic`); the app is not killed for it.
public struct DiskWriteLimit: Sendable, Equatable, Hashable, Codable {
  /// Bytes the app may write within one window.
  public var bytes: Int64
  /// The trailing window the writes are summed over.
  public var window: Duration

  public init(bytes: Int64, window: Duration) {
    self.bytes = bytes
    self.window = window
  }

  /// iOS's limit: 1 GB (the config's `1G`) in 24 hours.
  public static let iOS = DiskWriteLimit(bytes: 1 << 30, window: .seconds(24 * 3600))

  /// How many readings of the app's counter a window holds: the finer, the sooner an exception follows the crossing.
  public static let samplesPerWindow = 12

  /// How often a watched app's counter is read: a twelfth of the window, at least every minute (a 24-hour window
  /// still learns of a burst within a minute) and at most ten times a second.
  public var sampleInterval: Duration {
    min(max(window / DiskWriteLimit.samplesPerWindow, .milliseconds(100)), .seconds(60))
  }

  /// The window multiplied by `scale` (the config's `timeScale`).
  public func scaled(by scale: Double) -> DiskWriteLimit {
    DiskWriteLimit(bytes: bytes, window: window.scaled(by: scale))
  }
}
