/// Why a line breaks the rule of PROTOCOL.md, *Lines*, and where: which word or field, at which column.
///
/// ``description`` is a sentence to answer the sender with: for `reply id=2 x1=3`,
/// `field 2 "x1=3" at column 13: keys are ASCII letters`.
public struct AppLineError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Problem: Equatable, Sendable {
    /// The line is empty or only spaces.
    case noWord
    /// A byte of the word is not an ASCII letter.
    case wordNotLetters
    /// A field has no `=`.
    case fieldWithoutEquals
    /// A field starts with `=`.
    case emptyKey
    /// A byte of a key is not an ASCII letter.
    case keyNotLetters
    /// A `%` is not followed by two hex digits.
    case malformedEscape
    /// A value holds this space or control byte as it is instead of `%XX`.
    case unencodedByte(UInt8)
    /// A value's bytes, once decoded, are not UTF-8.
    case notUTF8
  }

  /// What is wrong.
  public var problem: Problem
  /// The field at fault, counting from 1; nil when it is the word.
  public var field: Int?
  /// The byte of the line at fault, counting from 1 (for a value that is not UTF-8: where its first bad
  /// sequence starts, or the `%` of the escape that starts it).
  public var column: Int
  /// The word or field at fault, as it was sent.
  public var part: [UInt8]

  /// An error at `column` of the word (`field` nil) or of the field numbered `field`.
  public init(_ problem: Problem, field: Int?, column: Int, part: [UInt8]) {
    self.problem = problem
    self.field = field
    self.column = column
    self.part = part
  }

  /// Where, then the rule broken: `word "he1lo" at column 3: words are ASCII letters`.
  public var description: String {
    guard problem != .noWord else { return "empty line: \(rule)" }
    let place = field.map { "field \($0)" } ?? "word"
    return "\(place) \(Self.quoted(part)) at column \(column): \(rule)"
  }

  private var rule: String {
    switch problem {
    case .noWord: "a line starts with a word"
    case .wordNotLetters: "words are ASCII letters"
    case .fieldWithoutEquals: "a field is key=value"
    case .emptyKey: "a field needs a key before ="
    case .keyNotLetters: "keys are ASCII letters"
    case .malformedEscape: "% must be followed by two hex digits"
    case .unencodedByte(let byte): "byte \(Self.hex(byte)) must be written %\(Self.hex(byte).dropFirst(2))"
    case .notUTF8: "the value does not decode to UTF-8"
    }
  }

  // The longest stretch of a word or field quoted: the message goes back inside an `error` line, which must stay
  // within AppLine.maxBytes once percent-encoded.
  private static let maxQuotedBytes = 40

  // Printable ASCII as it is, everything else escaped, so that a message shows exactly the bytes at fault and
  // stays one line of printable text.
  private static func quoted(_ bytes: [UInt8]) -> String {
    var text = "\""
    for byte in bytes.prefix(maxQuotedBytes) {
      switch byte {
      case UInt8(ascii: "\""): text += "\\\""
      case UInt8(ascii: "\\"): text += "\\\\"
      case UInt8(ascii: "\t"): text += "\\t"
      case UInt8(ascii: "\r"): text += "\\r"
      case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
      default: text += "\\x" + hex(byte).dropFirst(2)
      }
    }
    return text + (bytes.count > maxQuotedBytes ? "\"…" : "\"")
  }

  // `0x0D`: two uppercase hex digits.
  private static func hex(_ byte: UInt8) -> String {
    "0x" + String(decoding: [AppLine.hexDigits[Int(byte >> 4)], AppLine.hexDigits[Int(byte & 0x0F)]], as: UTF8.self)
  }
}
