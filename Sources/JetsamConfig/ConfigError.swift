/// A configuration problem, naming the file, where in it (the key path, or for text that is not JSON5 the line and
/// column) and the reason, with the value as written: `jetsamd.json5: apps.mail.memoryLimit: "12Q" is not a size`.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
  public var file: String
  public var keyPath: String
  /// Where in the file, for an error that no key path can name (the text is not JSON5, or not UTF-8).
  public var line: Int?
  public var column: Int?
  public var reason: String
  public var description: String {
    keyPath.isEmpty ? "\(file): \(reason)" : "\(file): \(keyPath): \(reason)"
  }

  /// Whether the error says where in the file: a key path, or a line and column.
  public var namesPlace: Bool { !keyPath.isEmpty || line != nil }

  public init(file: String, keyPath: String, reason: String) {
    self.file = file
    self.keyPath = keyPath
    self.reason = reason
  }

  init(file: String, line: Int, column: Int, reason: String) {
    self.init(file: file, keyPath: "", reason: reason)
    self.line = line
    self.column = column
  }
}
