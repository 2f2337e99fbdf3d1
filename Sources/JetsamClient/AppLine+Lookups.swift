import JetsamWire

/// The lookups the client makes on the daemon's lines.
extension AppLine {
  /// All fields as a dictionary, the first value winning for a repeated key.
  var fieldDictionary: [String: String] {
    Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
  }
}
