extension JSONTree {
  /// How deep arrays and objects may nest: a control request needs 2 levels, and a bound keeps a hostile
  /// `[[[[…` from exhausting the stack.
  static let maximumDepth = 64

  /// Parses strict JSON in one pass over the bytes.
  ///
  /// Control requests come through here rather than `JSONDecoder`: decoding a tree through `Decoder` tries each
  /// type in turn and throws for every mismatch, which cost about 7 ms for a request naming 1,000 apps. Integers
  /// that fit in Int64 (written without a fraction or an exponent) are ``integer(_:)``, other numbers
  /// ``number(_:)``; a later duplicate key replaces an earlier one.
  package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONTree {
    try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONTree in
      var parser = JSONParser(bytes: buffer)
      parser.skipSpace()
      let value = try parser.value(depth: 0)
      parser.skipSpace()
      guard parser.position == buffer.count else { throw parser.error("text after the JSON value") }
      return value
    }
  }
}

/// A recursive-descent reader over UTF-8 bytes; one instance parses one text.
private struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: position, reason: reason) }

  private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

  mutating func skipSpace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
  }

  mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONTree {
    guard let byte = current else { throw error("unexpected end of text") }
    switch byte {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw error("unexpected \(Self.describe(byte))")
    }
  }

  private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONTree {
    guard depth <= JSONTree.maximumDepth else { throw error("nested deeper than \(JSONTree.maximumDepth) levels") }
    position += 1
    var object: [String: JSONTree] = [:]
    skipSpace()
    if current == UInt8(ascii: "}") {
      position += 1
      return .object(object)
    }
    while true {
      skipSpace()
      guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let key = try string()
      skipSpace()
      guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
      position += 1
      skipSpace()
      object[key] = try value(depth: depth)
      skipSpace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return .object(object)
      default: throw error("expected ',' or '}' in an object")
      }
    }
  }

  private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONTree {
    guard depth <= JSONTree.maximumDepth else { throw error("nested deeper than \(JSONTree.maximumDepth) levels") }
    position += 1
    var items: [JSONTree] = []
    skipSpace()
    if current == UInt8(ascii: "]") {
      position += 1
      return .array(items)
    }
    while true {
      skipSpace()
      items.append(try value(depth: depth))
      skipSpace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return .array(items)
      default: throw error("expected ',' or ']' in an array")
      }
    }
  }

  /// `word` at the current position, read as `value`.
  private mutating func literal(_ word: StaticString, _ value: JSONTree) throws(JSONSyntaxError) -> JSONTree {
    let count = word.utf8CodeUnitCount
    guard bytes.count - position >= count,
      (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
    else { throw error("unexpected \(Self.describe(bytes[position]))") }
    position += count
    return value
  }

  private mutating func number() throws(JSONSyntaxError) -> JSONTree {
    let start = position
    var integral = true
    if current == UInt8(ascii: "-") { position += 1 }
    guard let first = current, Self.isDigit(first) else { throw error("expected a digit") }
    position += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      integral = false
      position += 1
      guard let digit = current, Self.isDigit(digit) else { throw error("expected a digit after '.'") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      integral = false
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      guard let digit = current, Self.isDigit(digit) else { throw error("expected a digit in the exponent") }
      skipDigits()
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    if integral, let integer = Int64(text) { return .integer(integer) }
    // The grammar was checked above, so the standard library's reading of the text cannot fail; a magnitude
    // beyond Double's range reads as an infinity, which the typed decoding then rejects as a wrong value.
    return .number(Double(text) ?? .nan)
  }

  private mutating func skipDigits() {
    while let byte = current, Self.isDigit(byte) { position += 1 }
  }

  private mutating func string() throws(JSONSyntaxError) -> String {
    position += 1  // the opening quote
    var text = ""
    var runStart = position
    // Runs of plain bytes are validated and copied whole (a string without escapes is one run).
    while true {
      guard let byte = current else { throw error("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        text += try validated(runStart..<position)
        position += 1
        return text
      case UInt8(ascii: "\\"):
        text += try validated(runStart..<position)
        position += 1
        text.unicodeScalars.append(try escape())
        runStart = position
      case ..<0x20: throw error("control character \(Self.describe(byte)) in a string")
      default: position += 1
      }
    }
  }

  /// The bytes in `range` as a String, if they are valid UTF-8.
  private func validated(_ range: Range<Int>) throws(JSONSyntaxError) -> String {
    guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
      throw JSONSyntaxError(offset: range.lowerBound, reason: "a string that is not valid UTF-8")
    }
    return text
  }

  /// One escape after its backslash.
  private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
    guard let byte = current else { throw error("unterminated string") }
    position += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let high = try hexQuad()
      if let scalar = Unicode.Scalar(high) { return scalar }
      guard high < 0xDC00, current == UInt8(ascii: "\\"), position + 1 < bytes.count,
        bytes[position + 1] == UInt8(ascii: "u")
      else { throw error("a lone surrogate \\u\(String(high, radix: 16, uppercase: true))") }
      position += 2
      let low = try hexQuad()
      guard (0xDC00...0xDFFF).contains(low),
        let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
      else { throw error("a lone surrogate in a \\u pair") }
      return scalar
    default:
      position -= 1
      throw error("unknown escape after '\\': \(Self.describe(byte))")
    }
  }

  private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = current, let digit = Self.hexValue(byte) else { throw error("expected 4 hex digits after \\u") }
      value = value << 4 | digit
      position += 1
    }
    return value
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private static func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// A byte as the error names it: the character if printable ASCII, else its value.
  private static func describe(_ byte: UInt8) -> String {
    (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
  }
}
