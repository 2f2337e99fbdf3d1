/// A background task handed out by ``JetsamApplication/beginBackgroundTask(withName:kind:expirationHandler:)``.
///
/// The counterpart of UIKit's `UIBackgroundTaskIdentifier`; the raw value is the daemon's `task=T`.
public struct BackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The daemon's task number.
  public let rawValue: Int

  /// Wraps a daemon task number.
  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// No task: returned when the daemon could not grant one. Ending it does nothing.
  public static let invalid = BackgroundTaskIdentifier(rawValue: -1)

  /// The task number, or `invalid`.
  public var description: String { self == .invalid ? "invalid" : String(rawValue) }
}
