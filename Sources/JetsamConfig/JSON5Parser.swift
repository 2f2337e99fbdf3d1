/// Reads a JSON5 text (https://spec.json5.org) into a ``JSONTree``, noting where each value is written.
///
/// Configs and lab scenarios are read here rather than by Foundation's JSON5 reader, which refuses some texts without
/// saying where (a `\u0000` or `\ud800` escape, a key `" "`) and traps on others (found by fuzzing): every refusal
/// here names its line and column.
enum JSON5Parser {
  /// The top-level value of `bytes` (UTF-8) and where each value is written, by key path
  /// (``ConfigKeyPath``; the top level is the empty path).
  ///
  /// Integers that fit in Int64 (however written: `3`, `0x1F`, `2.0`, `1e3`) are ``JSONTree/integer(_:)``, other
  /// numbers ``JSONTree/number(_:)``; a later duplicate key replaces an earlier one.
  ///
  /// - Throws: the first syntax error.
  static func parse(_ bytes: [UInt8]) throws(JSON5SyntaxError) -> (value: JSONTree, spans: [String: Range<Int>]) {
    var scanner = Scanner(bytes: bytes)
    try scanner.skipSpace()
    let value = try scanner.value(depth: 0, path: "")
    try scanner.skipSpace()
    if scanner.index < bytes.count { throw scanner.failure("unexpected text after the end of the top-level value") }
    return (value, scanner.spans)
  }

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0
    var spans: [String: Range<Int>] = [:]

    /// Deep enough for any config; deeper is an error, never a stack overflow.
    static let maxDepth = 64
    /// A NUL would end the C string a path, a user name or a command becomes, and no config value needs one.
    static let nulInString = "a NUL character (an escape for U+0000) in a string"
    /// No config needs a longer number; a bound keeps the reading of one cheap.
    static let maxNumberLength = 40

    func failure(_ message: String, at offset: Int? = nil) -> JSON5SyntaxError {
      let position = JSON5SyntaxError.position(of: min(offset ?? index, bytes.count), in: bytes)
      return JSON5SyntaxError(line: position.line, column: position.column, message: message)
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
        case 0xE2 where isLineSeparator(at: index):
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

    /// Whether U+2028 or U+2029 starts at `offset`.
    func isLineSeparator(at offset: Int) -> Bool {
      bytes[offset...].starts(with: [0xE2, 0x80, 0xA8]) || bytes[offset...].starts(with: [0xE2, 0x80, 0xA9])
    }

    /// The value at the cursor, noted as written at `path`.
    mutating func value(depth: Int, path: String) throws(JSON5SyntaxError) -> JSONTree {
      guard depth < Scanner.maxDepth else { throw failure("nested more than \(Scanner.maxDepth) deep") }
      guard let byte = current else { throw failure("a value is missing at the end of the text") }
      let start = index
      let value: JSONTree
      switch byte {
      case UInt8(ascii: "{"): value = try object(depth: depth, path: path)
      case UInt8(ascii: "["): value = try array(depth: depth, path: path)
      case UInt8(ascii: "\""), UInt8(ascii: "'"): value = .string(try string())
      case UInt8(ascii: "t"): value = try word("true", .bool(true))
      case UInt8(ascii: "f"): value = try word("false", .bool(false))
      case UInt8(ascii: "n"): value = try word("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "I"), UInt8(ascii: "N"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        value = try number()
      default: throw failure("expected a value, found \(shown)")
      }
      spans[path] = start..<index
      return value
    }

    mutating func word(_ text: String, _ value: JSONTree) throws(JSON5SyntaxError) -> JSONTree {
      guard bytes[index...].starts(with: text.utf8) else { throw failure("expected a value, found \(shown)") }
      index += text.utf8.count
      if let byte = current, isIdentifierPart(byte) { throw failure("unexpected \(shown) after \(text)") }
      return value
    }

    mutating func object(depth: Int, path: String) throws(JSON5SyntaxError) -> JSONTree {
      var object: [String: JSONTree] = [:]
      try items(closer: "}", name: "object") { scanner throws(JSON5SyntaxError) in
        let key = try scanner.key()
        try scanner.skipSpace()
        guard scanner.current == UInt8(ascii: ":") else {
          throw scanner.failure("expected ':' after the key, found \(scanner.shown)")
        }
        scanner.index += 1
        try scanner.skipSpace()
        object[key] = try scanner.value(depth: depth + 1, path: ConfigKeyPath.appending(key, to: path))
      }
      return .object(object)
    }

    mutating func array(depth: Int, path: String) throws(JSON5SyntaxError) -> JSONTree {
      var list: [JSONTree] = []
      try items(closer: "]", name: "list") { scanner throws(JSON5SyntaxError) in
        list.append(try scanner.value(depth: depth + 1, path: ConfigKeyPath.appending(index: list.count, to: path)))
      }
      return .array(list)
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

    /// An object's key: a string, or an identifier (whose `\uXXXX` escapes stand for their characters).
    mutating func key() throws(JSON5SyntaxError) -> String {
      if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") { return try string() }
      guard let first = current, isIdentifierStart(first) else {
        throw failure("expected a key or '}', found \(shown)")
      }
      var key = ""
      var runStart = index
      while let byte = current, isIdentifierPart(byte) {
        guard byte == UInt8(ascii: "\\") else {
          index += 1
          continue
        }
        key += String(decoding: bytes[runStart..<index], as: UTF8.self)
        index += 1
        guard current == UInt8(ascii: "u") else { throw failure("expected \\u after '\\' in a key, found \(shown)") }
        let scalar = try unicodeEscape()
        if scalar == "\0" { throw failure(Scanner.nulInString, at: index - 6) }
        key.unicodeScalars.append(scalar)
        runStart = index
      }
      return key + String(decoding: bytes[runStart..<index], as: UTF8.self)
    }

    /// A quoted string (the cursor on its quote), its escapes read.
    mutating func string() throws(JSON5SyntaxError) -> String {
      let start = index
      let quote = bytes[index]
      index += 1
      var text = ""
      var runStart = index
      while let byte = current {
        switch byte {
        case quote:
          text += String(decoding: bytes[runStart..<index], as: UTF8.self)
          index += 1
          return text
        case UInt8(ascii: "\\"):
          text += String(decoding: bytes[runStart..<index], as: UTF8.self)
          index += 1
          if let scalar = try escape() { text.unicodeScalars.append(scalar) }
          runStart = index
        case 0x0A, 0x0D:
          throw failure("a line break inside a string (end the string first, or escape it)")
        case 0x00..<0x20:
          throw failure("a control character (\(shown)) inside a string: escape it (\\u00XX)")
        default:
          index += 1
        }
      }
      throw failure("the string opened here is never closed", at: start)
    }

    /// The character an escape stands for (the cursor after its backslash); nil for a line continuation.
    mutating func escape() throws(JSON5SyntaxError) -> Unicode.Scalar? {
      let backslash = index - 1
      guard let escaped = current else { throw failure("the string opened here is never closed", at: backslash) }
      let scalar: Unicode.Scalar?
      switch escaped {
      case UInt8(ascii: "x"):
        index += 1
        scalar = Unicode.Scalar(UInt8(try hexDigits(2)))
      case UInt8(ascii: "u"):
        scalar = try unicodeEscape()
      case UInt8(ascii: "0") where !(index + 1 < bytes.count && isDigit(bytes[index + 1])):
        index += 1
        scalar = "\0"
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        throw failure("\\\(Character(UnicodeScalar(escaped))) is not an escape")
      case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"),
        UInt8(ascii: "v"):
        index += 1
        let named: [UInt8: Unicode.Scalar] = [
          UInt8(ascii: "b"): "\u{08}", UInt8(ascii: "f"): "\u{0C}", UInt8(ascii: "n"): "\n", UInt8(ascii: "r"): "\r",
          UInt8(ascii: "t"): "\t", UInt8(ascii: "v"): "\u{0B}",
        ]
        scalar = named[escaped]
      case 0x0A:
        index += 1
        return nil
      case 0x0D:
        index += bytes[index...].starts(with: [0x0D, 0x0A]) ? 2 : 1
        return nil
      case 0xE2 where isLineSeparator(at: index):
        index += 3
        return nil
      default:
        // Any other character stands for itself (`\'`, `\"`, `\\`, `\é`).
        let end = bytes[(index + 1)...].firstIndex { $0 & 0xC0 != 0x80 } ?? bytes.count
        scalar = String(decoding: bytes[index..<end], as: UTF8.self).unicodeScalars.first
        index = end
      }
      if scalar == "\0" { throw failure(Scanner.nulInString, at: backslash) }
      return scalar
    }

    /// `\uXXXX` (the cursor on the `u`), or a pair of them for a character beyond the Basic Multilingual Plane.
    mutating func unicodeEscape() throws(JSON5SyntaxError) -> Unicode.Scalar {
      let start = index - 1
      index += 1
      let high = try hexDigits(4)
      if let scalar = Unicode.Scalar(high) { return scalar }
      let lone = "a lone surrogate \\u\(String(high, radix: 16, uppercase: true)) (half of a UTF-16 pair)"
      guard high < 0xDC00, bytes[index...].starts(with: "\\u".utf8) else { throw failure(lone, at: start) }
      index += 2
      let low = try hexDigits(4)
      guard (0xDC00...0xDFFF).contains(low),
        let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
      else { throw failure(lone, at: start) }
      return scalar
    }

    /// The value of `count` hex digits at the cursor.
    mutating func hexDigits(_ count: Int) throws(JSON5SyntaxError) -> UInt32 {
      var value: UInt32 = 0
      for _ in 0..<count {
        guard let byte = current, let digit = hexValue(byte) else {
          throw failure("expected a hex digit, found \(shown)")
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }

    mutating func number() throws(JSON5SyntaxError) -> JSONTree {
      let start = index
      let negative = current == UInt8(ascii: "-")
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      let value: JSONTree
      if bytes[index...].starts(with: "Infinity".utf8) {
        index += 8
        value = .number(negative ? -.infinity : .infinity)
      } else if bytes[index...].starts(with: "NaN".utf8) {
        index += 3
        value = .number(.nan)
      } else if bytes[index...].starts(with: "0x".utf8) || bytes[index...].starts(with: "0X".utf8) {
        index += 2
        guard let byte = current, hexValue(byte) != nil else { throw failure("expected a hex digit, found \(shown)") }
        var magnitude: UInt64 = 0
        while let byte = current, let digit = hexValue(byte) {
          guard magnitude >> 60 == 0 else { throw failure("a hex number larger than 64 bits", at: start) }
          magnitude = magnitude << 4 | UInt64(digit)
          index += 1
        }
        value = Self.integer(magnitude: magnitude, negative: negative)
      } else {
        value = try decimal(start: start)
      }
      if let byte = current, isIdentifierPart(byte) { throw failure("unexpected \(shown) in a number") }
      if index - start > Scanner.maxNumberLength {
        throw failure("a number longer than \(Scanner.maxNumberLength) characters", at: start)
      }
      return value
    }

    /// A decimal number after its sign.
    mutating func decimal(start: Int) throws(JSON5SyntaxError) -> JSONTree {
      if current == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
        throw failure("a number may not start with 0 followed by more digits")
      }
      let integerDigits = digits()
      var fractionDigits = 0
      if current == UInt8(ascii: ".") {
        index += 1
        fractionDigits = digits()
      }
      guard integerDigits + fractionDigits > 0 else { throw failure("expected a number, found \(shown)") }
      // No config needs more digits than a 64-bit integer has.
      if integerDigits + fractionDigits > 20 { throw failure("a number with more than 20 digits", at: start) }
      if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
        index += 1
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { throw failure("expected the exponent's digits, found \(shown)") }
      }
      // Swift reads neither `.5` nor `5.` nor a leading `+`: write them as `0.5`, `5` and without the sign.
      var text = String(decoding: bytes[start..<index], as: UTF8.self)
      if text.hasPrefix("+") { text.removeFirst() }
      text = text.replacing(".e", with: "e").replacing(".E", with: "E")
      if text.hasSuffix(".") { text.removeLast() }
      if text.hasPrefix(".") || text.hasPrefix("-.") { text.insert("0", at: text.firstIndex(of: ".")!) }
      if let integer = Int64(text) { return .integer(integer) }
      guard let double = Double(text), double.isFinite else {
        throw failure("a number too large to represent", at: start)
      }
      if let integer = Int64(exactly: double) { return .integer(integer) }
      return .number(double)
    }

    /// A hex number's value: an integer when it fits in Int64.
    static func integer(magnitude: UInt64, negative: Bool) -> JSONTree {
      if negative, magnitude <= UInt64(Int64.max) + 1 {
        return .integer(magnitude == 0 ? 0 : -Int64(magnitude - 1) - 1)
      }
      if !negative, let integer = Int64(exactly: magnitude) { return .integer(integer) }
      return .number(negative ? -Double(magnitude) : Double(magnitude))
    }

    mutating func digits() -> Int {
      let start = index
      while let byte = current, isDigit(byte) { index += 1 }
      return index - start
    }

    func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    func hexValue(_ byte: UInt8) -> UInt8? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
      default: nil
      }
    }

    /// ECMAScript identifier characters: ASCII letters, `$`, `_`, a `\u` escape, and (leniently) any non-ASCII byte.
    func isIdentifierStart(_ byte: UInt8) -> Bool {
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "\\") || byte >= 0x80
    }

    func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
  }
}
