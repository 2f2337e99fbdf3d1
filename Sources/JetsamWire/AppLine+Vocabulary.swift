/// Lines built and read with the protocol's own words and keys, so that no side spells them as strings.
extension AppLine {
  /// A line an app sends: its word and fields, in order.
  public init(_ word: AppMessageWord, _ fields: [(AppProtocolField, String)] = []) {
    self.init(word.rawValue, fields.map { ($0.0.rawValue, $0.1) })
  }

  /// A line jetsamd sends: its word and fields, in order.
  public init(_ word: DaemonMessageWord, _ fields: [(AppProtocolField, String)] = []) {
    self.init(word.rawValue, fields.map { ($0.0.rawValue, $0.1) })
  }

  /// The value of the first field with this key.
  public subscript(field: AppProtocolField) -> String? { self[field.rawValue] }

  /// The value of the first field with this key, as a decimal integer.
  public func integer(_ field: AppProtocolField) -> Int? {
    self[field].flatMap { Int($0) }
  }
}
