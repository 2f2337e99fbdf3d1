/// A `Decoder` over a ``JSONTree``: how a config's types read it.
///
/// Not JSONDecoder over the tree's JSON text: FoundationEssentials' JSONDecoder reports a number that does not fit
/// the type (`daemonNice: 99999999999`) as "not valid JSON" with no key, and JSON has no word for an infinity. Here
/// every error carries the coding path of the value it is about. The one reader of JSON5 models: the config,
/// jetsam-sim's device models and the lab's scenarios (``ConfigLoader/decode(_:from:file:)``).
package struct JSONTreeDecoder: Decoder {
  package let value: JSONTree
  package let codingPath: [any CodingKey]
  package var userInfo: [CodingUserInfoKey: Any] { [:] }

  package init(_ value: JSONTree, codingPath: [any CodingKey] = []) {
    self.value = value
    self.codingPath = codingPath
  }

  package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = value else { throw mismatch([String: JSONTree].self) }
    return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
  }

  package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = value else { throw mismatch([JSONTree].self) }
    return UnkeyedContainer(items: items, codingPath: codingPath)
  }

  package func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueContainer(decoder: self)
  }

  func mismatch(_ type: Any.Type) -> DecodingError {
    if case .null = value {
      return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "null"))
    }
    return .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "\(value)"))
  }

  private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONTree]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decoder(for key: any CodingKey) throws -> JSONTreeDecoder {
      guard let value = object[key.stringValue] else {
        throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
      }
      return JSONTreeDecoder(value, codingPath: codingPath + [key])
    }

    func read<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T { try T(from: decoder(for: key)) }

    func decodeNil(forKey key: Key) throws -> Bool {
      guard case .null = try decoder(for: key).value else { return false }
      return true
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try read(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      try decoder(for: key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      try decoder(for: key).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { try decoder(for: AnyCodingKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
  }

  private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONTree]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [JSONTree], codingPath: [any CodingKey]) {
      self.items = items
      self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The decoder for the next item, moving past it.
    mutating func next(_ type: Any.Type) throws -> JSONTreeDecoder {
      let key = AnyCodingKey(intValue: currentIndex)!
      guard !isAtEnd else {
        throw DecodingError.valueNotFound(
          type, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "the list has no more items"))
      }
      currentIndex += 1
      return JSONTreeDecoder(items[currentIndex - 1], codingPath: codingPath + [key])
    }

    mutating func read<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next(type)) }

    mutating func decodeNil() throws -> Bool {
      guard !isAtEnd, case .null = items[currentIndex] else { return false }
      currentIndex += 1
      return true
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      try next([String: JSONTree].self).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
      try next([JSONTree].self).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder { try next(JSONTree.self) }
  }

  private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var value: JSONTree { decoder.value }

    func corrupted(_ description: String) -> DecodingError {
      .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: description))
    }

    func decodeNil() -> Bool {
      guard case .null = value else { return false }
      return true
    }

    func decode(_ type: Bool.Type) throws -> Bool {
      guard case .bool(let flag) = value else { throw decoder.mismatch(type) }
      return flag
    }

    func decode(_ type: String.Type) throws -> String {
      guard case .string(let text) = value else { throw decoder.mismatch(type) }
      return text
    }

    func decode(_ type: Double.Type) throws -> Double {
      switch value {
      case .integer(let integer): return Double(integer)
      case .number(let number): return number
      default: throw decoder.mismatch(type)
      }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    /// An integer of type `T`: a number with no fraction, in T's range.
    func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type) throws -> T {
      switch value {
      case .integer(let integer):
        guard let fitting = T(exactly: integer) else {
          throw corrupted("\(integer) is out of range (an integer from \(T.min) to \(T.max))")
        }
        return fitting
      case .number(let number): throw corrupted("expected an integer, got \(number)")
      default: throw decoder.mismatch(type)
      }
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
  }
}
