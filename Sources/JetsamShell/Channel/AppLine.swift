/// One line of the app protocol: a word and `key=value` fields with percent-encoded values (see PROTOCOL.md).
public struct AppLine: Equatable, Sendable {
  /// The longest line either side may send, newline included.
  public static let maxBytes = 4096

  public var word: String
  public var fields: [(key: String, value: String)]

  public init(_ word: String, _ fields: [(String, String)] = []) {
    self.word = word
    self.fields = fields.map { (key: $0.0, value: $0.1) }
  }

  /// The value of the first field called `key`.
  public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

  /// The line as sent, without the newline.
  public var encoded: String {
    ([word] + fields.map { "\($0.key)=\(AppLine.percentEncode($0.value))" }).joined(separator: " ")
  }

  /// Parses a line (without its newline); nil when it is not `word key=value…` with valid encoding.
  public static func parse(_ text: Substring) -> AppLine? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard let word = parts.first, word.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
    var fields: [(String, String)] = []
    for part in parts.dropFirst() {
      guard let equals = part.firstIndex(of: "="), equals != part.startIndex else { return nil }
      let key = part[..<equals]
      guard key.allSatisfy({ $0.isASCII && $0.isLetter }), let value = percentDecode(part[part.index(after: equals)...])
      else { return nil }
      fields.append((String(key), value))
    }
    return AppLine(String(word), fields)
  }

  public static func == (a: AppLine, b: AppLine) -> Bool {
    a.word == b.word && a.fields.map(\.key) == b.fields.map(\.key) && a.fields.map(\.value) == b.fields.map(\.value)
  }

  private static let unreserved = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/+,@".utf8)

  /// Every byte outside the unreserved set becomes `%XX`.
  public static func percentEncode(_ value: String) -> String {
    var out = ""
    for byte in value.utf8 {
      if unreserved.contains(byte) {
        out.append(Character(Unicode.Scalar(byte)))
      } else {
        let hex = String(byte, radix: 16, uppercase: true)
        out += "%" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    return out
  }

  /// Decodes `%XX` escapes; nil for a malformed escape or invalid UTF-8.
  public static func percentDecode(_ value: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = value.utf8.makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next(), let low = iterator.next(),
          let decoded = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(decoded)
      } else {
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }
}
