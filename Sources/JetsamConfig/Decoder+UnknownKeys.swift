import FoundationEssentials

extension Decoder {
  /// Throws a decoding error naming the first key of this object that is not in `known`.
  package func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ keys: Key.Type) throws {
    let container = try self.container(keyedBy: AnyCodingKey.self)
    let known = Set(Key.allCases.map(\.stringValue))
    for key in container.allKeys where !known.contains(key.stringValue) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: codingPath + [key],
          debugDescription: "unknown key (known keys: \(known.sorted().joined(separator: ", ")))"))
    }
  }
}
