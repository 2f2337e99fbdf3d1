import FoundationEssentials

extension KeyedDecodingContainer {
  /// The number at `key`, which must lie in `range`; `value` when the key is absent, or an error at `key` when there
  /// is no default (`missing (a number is required)`). Out of the range: `2.0 is out of range (0.0 to 1.0)`.
  package func decodeNumber(_ key: Key, default value: Double? = nil, in range: ClosedRange<Double>) throws -> Double {
    guard contains(key) else {
      guard let value else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: self, debugDescription: "missing (a number is required)")
      }
      return value
    }
    let found = try decode(Double.self, forKey: key)
    guard range.contains(found) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: "\(found) is out of range (\(range.lowerBound) to \(range.upperBound))"
      )
    }
    return found
  }
}
