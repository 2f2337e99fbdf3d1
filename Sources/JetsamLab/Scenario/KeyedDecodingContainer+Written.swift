/// Optional keys as a scenario has them: a key left out is absent, but a key written as null is a value, refused
/// like any other of the wrong type (`decodeIfPresent` would take null for absent).
extension KeyedDecodingContainer {
  /// The value at `key`, nil when the key is not written.
  func decodeIfWritten<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    contains(key) ? try decode(type, forKey: key) : nil
  }

  /// What `read` makes of the value at `key`, nil when the key is not written.
  func readIfWritten<T>(_ key: Key, _ read: (any Decoder) throws -> T) throws -> T? {
    contains(key) ? try read(try superDecoder(forKey: key)) : nil
  }
}
