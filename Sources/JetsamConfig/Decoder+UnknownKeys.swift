import FoundationEssentials

extension Decoder {
  /// Throws a decoding error naming a key of this object that is not in `known`: the first in sorted order, so that
  /// an object with several names the same one on every run.
  package func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ keys: Key.Type) throws {
    let container = try self.container(keyedBy: AnyCodingKey.self)
    let known = Set(Key.allCases.map(\.stringValue))
    let unknown = container.allKeys.filter { !known.contains($0.stringValue) }
    if let key = unknown.min(by: { $0.stringValue < $1.stringValue }) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: codingPath + [key],
          debugDescription: "unknown key (known keys: \(known.sorted().joined(separator: ", ")))"))
    }
  }

  /// This object's container, its keys all `Key`'s (``rejectUnknownKeys(_:)``).
  package func container<Key: CodingKey & CaseIterable>(knownKeys type: Key.Type) throws -> KeyedDecodingContainer<Key>
  {
    try rejectUnknownKeys(type)
    return try container(keyedBy: type)
  }
}
