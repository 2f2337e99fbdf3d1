/// Where a JSON5 text (https://spec.json5.org) stops being JSON5, and why: Foundation's JSON5 reader refuses such a
/// text without saying where, and a config error must say where.
///
/// A recognizer: it builds nothing, but notes where the decimal numbers are (see ``normalizingNumbers(in:)``).
struct JSON5SyntaxError: Error, Equatable, CustomStringConvertible {
  /// 1-based line and column (in bytes) of the first byte that cannot be JSON5.
  var line: Int
  var column: Int
  var message: String

  var description: String { "line \(line), column \(column): \(message)" }

  /// The first syntax error in `bytes` (UTF-8), or nil when it is JSON5 (with a single value at the top level).
  static func find(in bytes: [UInt8]) -> JSON5SyntaxError? {
    do throws(JSON5SyntaxError) {
      _ = try check(bytes)
      return nil
    } catch {
      return error
    }
  }

  /// `bytes` with every decimal number that is not an Int64 written as Swift writes the Double it stands for
  /// (`222.60060000000006043` → `222.60060000000007`), after checking that they are JSON5.
  ///
  /// Foundation's JSON5 reader traps on some numbers it cannot read exactly (digit caps kept finding new ones:
  /// 34 digits, then 20, found by fuzzing); a number in the shortest form that round-trips, as JSONEncoder writes
  /// them, is one it reads every day. Hex numbers (64 bits at most), integers and the words stay as written.
  ///
  /// - Throws: the first syntax error.
  static func normalizingNumbers(in bytes: [UInt8]) throws(JSON5SyntaxError) -> [UInt8] {
    let numbers = try check(bytes)
    guard !numbers.isEmpty else { return bytes }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var copied = 0
    for range in numbers {
      let text = String(decoding: bytes[range], as: UTF8.self)
      guard Int64(text) == nil, let value = Double(text) else { continue }
      out += bytes[copied..<range.lowerBound]
      out += Array(value.description.utf8)
      copied = range.upperBound
    }
    out += bytes[copied...]
    return out
  }

  /// Whether the top-level value of `bytes` (checked JSON5) is an object: what comes first after white space and
  /// comments is `{`.
  static func topLevelIsObject(_ bytes: [UInt8]) -> Bool {
    var scanner = Scanner(bytes: bytes)
    guard (try? scanner.skipSpace()) != nil else { return false }
    return scanner.current == UInt8(ascii: "{")
  }

  /// Checks the whole text; returns where its decimal numbers are.
  private static func check(_ bytes: [UInt8]) throws(JSON5SyntaxError) -> [Range<Int>] {
    var scanner = Scanner(bytes: bytes)
    try scanner.skipSpace()
    try scanner.value(depth: 0)
    try scanner.skipSpace()
    if scanner.index < bytes.count { throw scanner.failure("unexpected text after the end of the top-level value") }
    return scanner.decimalNumbers
  }

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0
    /// Where each decimal number is (not hex numbers, `Infinity` or `NaN`), in order.
    var decimalNumbers: [Range<Int>] = []

    /// Deep enough for any config; deeper is an error, never a stack overflow.
    static let maxDepth = 64

    func failure(_ message: String, at offset: Int? = nil) -> JSON5SyntaxError {
      let offset = min(offset ?? index, bytes.count)
      var line = 1
      var lineStart = 0
      for position in 0..<offset where bytes[position] == UInt8(ascii: "\n") {
        line += 1
        lineStart = position + 1
      }
      return JSON5SyntaxError(line: line, column: offset - lineStart + 1, message: message)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The character at the cursor, for messages.
    var shown: String {
      guard let byte = current else { return "the end of the text" }
      if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
      switch byte {
      case 0x20: return "a space"
      case 0x09: return "a tab"
      case 0x0A, 0x0D: return "a line break"
      default: break
      }
      return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    mutating func skipSpace() throws(JSON5SyntaxError) {
      while let byte = current {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D: index += 1
        case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0xA0: index += 2  // no-break space
        case 0xEF where bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]): index += 3  // byte order mark
        case 0xE2
        where bytes[index...].starts(with: [0xE2, 0x80, 0xA8]) || bytes[index...].starts(with: [0xE2, 0x80, 0xA9]):
          index += 3  // line and paragraph separators
        case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
          while let byte = current, byte != 0x0A { index += 1 }
        case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
          let start = index
          index += 2
          while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
          {
            index += 1
          }
          guard index + 1 < bytes.count else { throw failure("a /* comment is never closed", at: start) }
          index += 2
        default: return
        }
      }
    }

    mutating func value(depth: Int) throws(JSON5SyntaxError) {
      guard depth < Scanner.maxDepth else { throw failure("nested more than \(Scanner.maxDepth) deep") }
      guard let byte = current else { throw failure("a value is missing at the end of the text") }
      switch byte {
      case UInt8(ascii: "{"): try object(depth: depth)
      case UInt8(ascii: "["): try array(depth: depth)
      case UInt8(ascii: "\""), UInt8(ascii: "'"): try string()
      case UInt8(ascii: "t"): try word("true")
      case UInt8(ascii: "f"): try word("false")
      case UInt8(ascii: "n"): try word("null")
      case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "I"), UInt8(ascii: "N"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        try number()
      default: throw failure("expected a value, found \(shown)")
      }
    }

    mutating func word(_ text: String) throws(JSON5SyntaxError) {
      guard bytes[index...].starts(with: text.utf8) else { throw failure("expected a value, found \(shown)") }
      index += text.utf8.count
      if let byte = current, isIdentifierPart(byte) { throw failure("unexpected \(shown) after \(text)") }
    }

    mutating func object(depth: Int) throws(JSON5SyntaxError) {
      try items(closer: "}", name: "object") { scanner throws(JSON5SyntaxError) in try scanner.member(depth: depth) }
    }

    mutating func array(depth: Int) throws(JSON5SyntaxError) {
      try items(closer: "]", name: "list") { scanner throws(JSON5SyntaxError) in try scanner.value(depth: depth + 1) }
    }

    /// The items of an object or a list (the cursor on its opening bracket) up to `closer`, comma-separated, a
    /// trailing comma allowed; `item` reads one, starting on its first byte.
    mutating func items(
      closer: Unicode.Scalar, name: String, _ item: (inout Scanner) throws(JSON5SyntaxError) -> Void
    ) throws(JSON5SyntaxError) {
      let start = index
      let close = UInt8(ascii: closer)
      index += 1
      while true {
        try skipSpace()
        guard let byte = current else { throw failure("the \(name) opened here is never closed", at: start) }
        if byte == close {
          index += 1
          return
        }
        try item(&self)
        try skipSpace()
        if current == UInt8(ascii: ",") {
          index += 1
        } else if current != close {
          throw failure("expected ',' or '\(closer)' after the value, found \(shown)")
        }
      }
    }

    /// One `key: value` of an object.
    mutating func member(depth: Int) throws(JSON5SyntaxError) {
      if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") {
        try string()
      } else if let byte = current, isIdentifierStart(byte) {
        while let byte = current, isIdentifierPart(byte) { index += 1 }
      } else {
        throw failure("expected a key or '}', found \(shown)")
      }
      try skipSpace()
      guard current == UInt8(ascii: ":") else { throw failure("expected ':' after the key, found \(shown)") }
      index += 1
      try skipSpace()
      try value(depth: depth + 1)
    }

    mutating func string() throws(JSON5SyntaxError) {
      let start = index
      let quote = bytes[index]
      index += 1
      while let byte = current {
        switch byte {
        case quote:
          index += 1
          return
        case UInt8(ascii: "\\"):
          index += 1
          guard let escaped = current else { break }
          switch escaped {
          case UInt8(ascii: "x"):
            try hexDigits(2)
          case UInt8(ascii: "u"):
            try hexDigits(4)
          case UInt8(ascii: "1")...UInt8(ascii: "9"):
            throw failure("\\\(Character(UnicodeScalar(escaped))) is not an escape")
          default:
            index += 1  // \n, \', a line continuation, or any other character standing for itself
          }
        case 0x0A, 0x0D:
          throw failure("a line break inside a string (end the string first, or escape it)")
        case 0x00..<0x20:
          // JSON5 would take it; Foundation's reader does not.
          throw failure("a control character (\(shown)) inside a string: escape it (\\u00XX)")
        default:
          index += 1
        }
      }
      throw failure("the string opened here is never closed", at: start)
    }

    mutating func hexDigits(_ count: Int) throws(JSON5SyntaxError) {
      index += 1
      for _ in 0..<count {
        guard let byte = current, isHexDigit(byte) else { throw failure("expected a hex digit, found \(shown)") }
        index += 1
      }
    }

    mutating func number() throws(JSON5SyntaxError) {
      let start = index
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      if bytes[index...].starts(with: "Infinity".utf8) {
        index += 8
      } else if bytes[index...].starts(with: "NaN".utf8) {
        index += 3
      } else if bytes[index...].starts(with: "0x".utf8) || bytes[index...].starts(with: "0X".utf8) {
        index += 2
        guard let byte = current, isHexDigit(byte) else { throw failure("expected a hex digit, found \(shown)") }
        let digitsStart = index
        while let byte = current, isHexDigit(byte) { index += 1 }
        let significant = bytes[digitsStart..<index].drop { $0 == UInt8(ascii: "0") }
        if significant.count > 16 { throw failure("a hex number larger than 64 bits", at: start) }
      } else {
        if current == UInt8(ascii: "0"), index + 1 < bytes.count,
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 1])
        {
          throw failure("a number may not start with 0 followed by more digits")
        }
        let integerDigits = digits()
        var fractionDigits = 0
        if current == UInt8(ascii: ".") {
          index += 1
          fractionDigits = digits()
        }
        guard integerDigits + fractionDigits > 0 else { throw failure("expected a number, found \(shown)") }
        // Foundation's number reader also traps on some numbers with many digits (34, found by fuzzing); no config
        // needs more than 20.
        if integerDigits + fractionDigits > 20 { throw failure("a number with more than 20 digits", at: start) }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
          index += 1
          if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
          guard digits() > 0 else { throw failure("expected the exponent's digits, found \(shown)") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if let value = Double(text), !value.isFinite { throw failure("a number too large to represent", at: start) }
        decimalNumbers.append(start..<index)
      }
      if let byte = current, isIdentifierPart(byte) { throw failure("unexpected \(shown) in a number") }
      // Foundation's number reader traps on very long numbers (130 digits, found by fuzzing); no config needs one.
      if index - start > Scanner.maxNumberLength {
        throw failure("a number longer than \(Scanner.maxNumberLength) characters", at: start)
      }
    }

    static let maxNumberLength = 40

    mutating func digits() -> Int {
      let start = index
      while let byte = current, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { index += 1 }
      return index - start
    }

    func isHexDigit(_ byte: UInt8) -> Bool {
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// ECMAScript identifier characters: ASCII letters, `$`, `_`, and (leniently) any non-ASCII byte.
    func isIdentifierStart(_ byte: UInt8) -> Bool {
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "\\") || byte >= 0x80
    }

    func isIdentifierPart(_ byte: UInt8) -> Bool {
      isIdentifierStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
  }
}
