/// A model that cannot be simulated: which file, where in it (a line and column, or a key path) and what is wrong.
public struct SimModelError: Error, CustomStringConvertible, Sendable {
  /// The model file's path, or `built-in NAME`.
  public var file: String
  /// The key path, e.g. `kinds[2].share`; empty when the place is a line and column.
  public var keyPath: String
  /// What is wrong, with the value as written where it helps.
  public var reason: String

  /// An error about `keyPath` (empty for a line and column, which `reason` then says) of `file`.
  public init(file: String, keyPath: String, reason: String) {
    self.file = file
    self.keyPath = keyPath
    self.reason = reason
  }

  /// `FILE: KEY.PATH: REASON`, or `FILE: REASON`.
  public var description: String { keyPath.isEmpty ? "\(file): \(reason)" : "\(file): \(keyPath): \(reason)" }
}
