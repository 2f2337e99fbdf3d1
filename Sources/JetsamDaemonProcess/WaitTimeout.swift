/// A wait that ran out of time (``waitUntil(_:timeout:interval:_:)``): what was awaited, and for how long.
public struct WaitTimeout: Error, CustomStringConvertible, Sendable {
  /// What was awaited (`"jetsamd to answer on /run/x.sock"`).
  public var what: String
  /// How long it was awaited.
  public var timeout: Duration

  /// A timeout waiting `timeout` for `what`.
  public init(what: String, timeout: Duration) {
    self.what = what
    self.timeout = timeout
  }

  public var description: String { "timed out after \(timeout.secondsText) s waiting for \(what)" }
}
