/// JSON text built by appending bytes: for the few hot encodings (every app of a batch answer, the state file)
/// where `JSONEncoder` costs ~10 µs an object. The output matches what `JSONEncoder` writes with `.sortedKeys`
/// and `.withoutEscapingSlashes` (tests compare the two byte for byte); keys must be written in sorted order.
public struct JSONBytes {
  public private(set) var bytes: [UInt8] = []

  public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

  /// Text known to be valid JSON (punctuation, keys, an earlier encoding).
  public mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  public mutating func raw(_ encoded: some Sequence<UInt8>) { bytes.append(contentsOf: encoded) }

  public mutating func number(_ value: some BinaryInteger) {
    bytes.append(contentsOf: String(value).utf8)
  }

  /// A finite Double as `JSONEncoder` writes it (`3` rather than `3.0`); false, and nothing written, when it is
  /// not finite (JSON has no NaN or infinity).
  public mutating func number(_ value: Double) -> Bool {
    guard value.isFinite else { return false }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    bytes.append(contentsOf: text.utf8)
    return true
  }

  public mutating func bool(_ value: Bool) {
    value ? raw("true") : raw("false")
  }

  /// A JSON string: quotes, backslashes and control characters escaped; everything else as UTF-8.
  public mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case UInt8(ascii: "\n"): raw("\\n")
      case UInt8(ascii: "\r"): raw("\\r")
      case UInt8(ascii: "\t"): raw("\\t")
      case 0x08: raw("\\b")
      case 0x0C: raw("\\f")
      case 0..<0x20:
        raw("\\u00")
        bytes.append(Self.hexDigits[Int(byte >> 4)])
        bytes.append(Self.hexDigits[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// `,"key":` (or `"key":` when `first`).
  public mutating func key(_ key: StaticString, first: Bool = false) {
    raw(first ? "\"" : ",\"")
    raw(key)
    raw("\":")
  }

  /// `,"key":"value"` when `value` is set.
  public mutating func optionalString(_ key: StaticString, _ value: String?) {
    guard let value else { return }
    self.key(key)
    string(value)
  }
}
