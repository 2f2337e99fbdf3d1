/// Why a step of a test or of the bench could not go on: a wait that timed out, a daemon that did not start, a
/// cgroup that could not be removed. The description says what, in words a reader can act on.
public struct TestKitError: Error, CustomStringConvertible, Sendable {
  /// What went wrong.
  public var description: String

  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}
