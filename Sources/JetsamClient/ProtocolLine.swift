/// One line of the app protocol: a word followed by `key=value` fields (PROTOCOL.md, *Lines*).
///
/// Values are held decoded; ``text`` percent-encodes them and ``init(parsing:)`` decodes them.
struct ProtocolLine: Equatable, Sendable {
  /// One `key=value` field, its value decoded.
  struct Field: Equatable, Sendable {
    var key: String
    var value: String
  }

  /// Why a line could not be taken apart.
  enum ParseError: Error, Equatable {
    /// The line has no word.
    case empty
    /// A field is not `key=value` with a non-empty key.
    case malformedField(String)
    /// A value has a `%` that is not followed by two hex digits.
    case malformedValue(String)
  }

  /// The largest line, in bytes, counting its `\n`.
  static let maximumLength = 4096

  /// The first word: `event`, `reply`, `ack`, …
  var word: String
  /// The fields in the order they appear.
  var fields: [Field]

  /// A line from a word and fields, in order.
  init(_ word: String, _ fields: KeyValuePairs<String, String> = [:]) {
    self.word = word
    self.fields = fields.map { Field(key: $0.key, value: $0.value) }
  }

  /// Takes a line apart.
  ///
  /// Runs of spaces and a trailing space are tolerated; a repeated key keeps its first value in lookups.
  ///
  /// - Parameter text: The line, without its `\n`.
  /// - Throws: ``ParseError`` when there is no word or a field is malformed.
  init(parsing text: some StringProtocol) throws(ParseError) {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard let first = parts.first else { throw .empty }
    word = String(first)
    fields = try Self.parseFields(parts.dropFirst())
  }

  /// Parses a run of space-separated `key=value` fields, such as `$JETSAM_PREVIOUS_EXIT`.
  ///
  /// - Parameter text: The fields, without a word.
  /// - Returns: The fields with their values decoded.
  /// - Throws: ``ParseError`` when a field is malformed.
  static func parseFields(_ text: some StringProtocol) throws(ParseError) -> [Field] {
    try parseFields(text.split(separator: " ", omittingEmptySubsequences: true))
  }

  private static func parseFields(_ parts: some Sequence<some StringProtocol>) throws(ParseError) -> [Field] {
    var fields: [Field] = []
    for part in parts {
      guard let equals = part.firstIndex(of: "="), equals != part.startIndex else {
        throw .malformedField(String(part))
      }
      let encoded = part[part.index(after: equals)...]
      guard let value = PercentEncoding.decode(encoded) else { throw .malformedValue(String(part)) }
      fields.append(Field(key: String(part[..<equals]), value: value))
    }
    return fields
  }

  /// The value of the first field with this key.
  subscript(key: String) -> String? {
    fields.first { $0.key == key }?.value
  }

  /// The value of the first field with this key, as an integer.
  func integer(_ key: String) -> Int? {
    self[key].flatMap { Int($0) }
  }

  /// The line as sent, values percent-encoded, without its `\n`.
  var text: String {
    var text = word
    for field in fields {
      text += " \(field.key)=\(PercentEncoding.encode(field.value))"
    }
    return text
  }

  /// All fields as a dictionary, the first value winning for a repeated key.
  var fieldDictionary: [String: String] {
    Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
  }
}
