import FoundationEssentials

extension KeyedDecodingContainer {
  /// The choice named at `key` (a string, one of `Choice`'s raw values), nil when the key is absent; a config error
  /// at `key` that lists the choices when it names none of them.
  func decodeChoiceIfPresent<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws
    -> Choice?
  where Choice.RawValue == String {
    guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
    guard let choice = Choice(rawValue: text) else {
      let choices = Choice.allCases.map(\.rawValue).joined(separator: ", ")
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: "\"\(text)\" is not one of \(choices)")
    }
    return choice
  }
}
