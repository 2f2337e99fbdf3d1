/// A model that cannot be simulated: which file, where in it (a line and column, or a key path) and what is wrong.
public struct SimModelError: Error, CustomStringConvertible, Sendable {
  public var file: String
  /// The key path, e.g. `kinds[2].share`; empty when the place is a line and column.
  public var keyPath: String
  public var reason: String

  public init(file: String, keyPath: String, reason: String) {
    self.file = file
    self.keyPath = keyPath
    self.reason = reason
  }

  public var description: String { keyPath.isEmpty ? "\(file): \(reason)" : "\(file): \(keyPath): \(reason)" }
}
