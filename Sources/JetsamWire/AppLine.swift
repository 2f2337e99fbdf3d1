/// One line of the app protocol: a word and `key=value` fields with percent-encoded values (PROTOCOL.md, *Lines*).
///
/// Values are held decoded: ``encoded`` percent-encodes them, ``init(parsing:)`` decodes them.
public struct AppLine: Equatable, Sendable {
  /// The longest line either side may send, in bytes, counting its newline.
  public static let maxBytes = 4096

  /// One `key=value` field, its value decoded.
  public typealias Field = (key: String, value: String)

  /// The first word: `event`, `reply`, `ack`, …
  public var word: String
  /// The fields in the order they appear, values decoded. A key may repeat; lookups see its first value.
  public var fields: [Field]

  /// A line from a word and fields, in order.
  ///
  /// Nothing is checked here: a word or key that is not ASCII letters makes a line that ``encoded`` writes but
  /// no reader accepts.
  public init(_ word: String, _ fields: [(String, String)] = []) {
    self.word = word
    self.fields = fields.map { (key: $0.0, value: $0.1) }
  }

  /// The value of the first field called `key`.
  public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

  /// The line as sent, values percent-encoded, without the newline.
  public var encoded: String {
    ([word] + fields.map { "\($0.key)=\(AppLine.percentEncode($0.value))" }).joined(separator: " ")
  }

  /// Takes a line apart, the way ``init(parsing:)`` does; nil where it throws.
  ///
  /// - Parameter text: The line, without its newline.
  public static func parse(_ text: Substring) -> AppLine? {
    try? AppLine(parsing: text)
  }

  public static func == (a: AppLine, b: AppLine) -> Bool {
    a.word == b.word && a.fields.map(\.key) == b.fields.map(\.key) && a.fields.map(\.value) == b.fields.map(\.value)
  }
}
