import JetsamWire

/// The lookups the client makes on the daemon's lines.
extension AppLine {
  /// The value of the first field with this key, as an integer.
  func integer(_ key: String) -> Int? {
    self[key].flatMap { Int($0) }
  }

  /// All fields as a dictionary, the first value winning for a repeated key.
  var fieldDictionary: [String: String] {
    Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
  }
}
