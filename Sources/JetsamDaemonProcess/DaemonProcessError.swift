/// Why a ``DaemonProcess`` could not be started or did not come up: the description says what, with the end of the
/// daemon's output when it has any.
public struct DaemonProcessError: Error, CustomStringConvertible, Sendable {
  /// What went wrong.
  public var description: String

  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}
