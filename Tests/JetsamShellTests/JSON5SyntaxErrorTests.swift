import Foundation
import JetsamTestTraits
import Testing

@testable import JetsamConfig
@testable import JetsamShell

/// Config syntax errors say where: ``JSON5Parser`` names the line and column of each.
@Suite("JSON5 syntax errors", .offThePool)
struct JSON5SyntaxErrorTests {
  struct Case: CustomStringConvertible, Sendable {
    var text: String
    var line: Int
    var column: Int
    var message: String
    var description: String { text }
  }

  static let invalid: [Case] = [
    Case(text: "{ a: 1\n  b: 2 }", line: 2, column: 3, message: "expected ',' or '}' after the value, found 'b'"),
    Case(text: "{ a: [1, 2 }", line: 1, column: 12, message: "expected ',' or ']' after the value, found '}'"),
    Case(text: "{ a: \"x }", line: 1, column: 6, message: "the string opened here is never closed"),
    Case(text: "{\n  a: 'x\n' }", line: 2, column: 8, message: "a line break inside a string"),
    Case(text: "{ a: 1, /* note", line: 1, column: 9, message: "a /* comment is never closed"),
    Case(text: "{ a: tru }", line: 1, column: 6, message: "expected a value, found 't'"),
    Case(text: "{ a: 1.2.3 }", line: 1, column: 9, message: "expected ',' or '}' after the value, found '.'"),
    Case(text: "{ a: 0xZ }", line: 1, column: 8, message: "expected a hex digit, found 'Z'"),
    Case(text: "{ 1a: 2 }", line: 1, column: 3, message: "expected a key or '}', found '1'"),
    Case(text: "{ a 2 }", line: 1, column: 5, message: "expected ':' after the key, found '2'"),
    Case(text: "{ a: 1 } }", line: 1, column: 10, message: "unexpected text after the end of the top-level value"),
    Case(text: "{ a: \"\\1\" }", line: 1, column: 8, message: "\\1 is not an escape"),
    Case(text: "{ a: 1e }", line: 1, column: 8, message: "expected the exponent's digits, found a space"),
    Case(
      text: "{\n  apps: {\n    mail: { command: [\"x\",, ] },\n  },\n}", line: 3, column: 27,
      message: "expected a value, found ','"),
    Case(text: "", line: 1, column: 1, message: "a value is missing at the end of the text"),
    Case(text: "{ a: 05.5 }", line: 1, column: 6, message: "a number may not start with 0 followed by more digits"),
    Case(text: "{ a: 1e999 }", line: 1, column: 6, message: "a number too large to represent"),
    Case(text: "{ a: 0x1FFFFFFFFFFFFFFFF }", line: 1, column: 6, message: "a hex number larger than 64 bits"),
    Case(text: "0x0xa", line: 1, column: 4, message: "unexpected 'x' in a number"),
    Case(text: " " + String(repeating: "2", count: 130), line: 1, column: 2, message: "a number with more than 20"),
    Case(text: " 22220000063616832.0000000000000088", line: 1, column: 2, message: "a number with more than 20"),
  ]

  @Test("each invalid text: the line, the column and what is wrong", arguments: invalid)
  func invalidText(_ bad: Case) throws {
    let found = try #require(JSON5SyntaxError.find(in: Array(bad.text.utf8)))
    #expect(found.line == bad.line && found.column == bad.column, "\(found) for \(bad.text.debugDescription)")
    #expect(found.message.hasPrefix(bad.message), "\(found)")
  }

  @Test("what JSON5 allows is accepted: comments, unquoted keys, single quotes, trailing commas, hex, Infinity")
  func validText() throws {
    let text = """
      // a comment
      { unquoted: 'single', "double": "esc \\" \\u00e9 \\x41 \\
      continued", trailing: [1, 2,], hex: 0xFF, inf: -Infinity, nan: NaN, lead: .5, trail: 5., exp: 1e-3,
        /* block */ nested: { a: null, b: true, c: false, }, $dollar_1: +1, }
      """
    #expect(JSON5SyntaxError.find(in: Array(text.utf8)) == nil)
    // Every config the repository ships.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let configs =
      ["config/jetsamd.json5"]
      + (try FileManager.default.contentsOfDirectory(atPath: root.path + "/config/profiles"))
      .map { "config/profiles/" + $0 }
    for config in configs {
      let bytes = Array(try Data(contentsOf: root.appendingPathComponent(config)))
      #expect(JSON5SyntaxError.find(in: bytes) == nil, "\(config)")
    }
  }

  @Test("the loader's error for a syntax error names the file, the line and the column")
  func loaderSaysWhere() throws {
    #expect(throws: ConfigError.self) {
      try ConfigLoader.parse("{\n  device: { ram: \"2G\" }\n  suspend: {} }", file: "x.json5")
    }
    do {
      _ = try ConfigLoader.parse("{\n  device: { ram: \"2G\" }\n  suspend: {} }", file: "x.json5")
    } catch {
      #expect(
        error.description
          == "x.json5: not valid JSON5 at line 3, column 3: expected ',' or '}' after the value, found 's'")
    }
  }

  @Test("numbers: integers that fit in Int64 however written, other numbers as doubles, the words of JSON5")
  func numbers() throws {
    let text = """
      { a: 222.60060000000006043, b: 42, c: -7, d: 0x1F, e: 1e3, f: .5, g: 18446744073709551616, h: 'x1.50',
        i: 2.0, j: 5., k: -0x8000000000000000, l: +3, m: -Infinity, n: 1e300 }
      """
    guard case .object(let object) = try JSON5Parser.parse(Array(text.utf8)).value else {
      Issue.record("not an object")
      return
    }
    let expected: [String: JSONTree] = [
      "a": .number(222.60060000000007), "b": .integer(42), "c": .integer(-7), "d": .integer(31), "e": .integer(1000),
      "f": .number(0.5), "g": .number(18_446_744_073_709_551_616), "h": .string("x1.50"), "i": .integer(2),
      "j": .integer(5),
      "k": .integer(.min), "l": .integer(3), "m": .number(-.infinity), "n": .number(1e300),
    ]
    for (key, value) in expected {
      #expect(object[key].map { "\($0)" } == "\(value)", "\(key)")
    }
    // A 20-digit fraction like a fuzzing crasher of Foundation's reader: a value like any other.
    let config = try ConfigLoader.parse("{ timeScale: 22.260060000000000604 }", file: "x.json5")
    #expect(config.timeScale == 22.26006)
  }

  @Test("strings: every JSON5 escape; NUL and lone surrogates refused by line and column")
  func strings() throws {
    // A backslash before a line break continues the string on the next line.
    let text = #"{ "a b": "\t\x41\u00e9\ud83d\ude00\'\v", \u0063d: 'line\"# + "\n" + #"continued' }"#
    guard case .object(let object) = try JSON5Parser.parse(Array(text.utf8)).value else {
      Issue.record("not an object")
      return
    }
    #expect(object["a b"].map { "\($0)" } == "\(JSONTree.string("\tAé😀'\u{0B}"))")
    #expect(object["cd"].map { "\($0)" } == "\(JSONTree.string("linecontinued"))")
    for (bad, column, message) in [
      (#"{ a: "x\u0000" }"#, 8, "a NUL character"), (#"{ a: 'x\0' }"#, 8, "a NUL character"),
      (#"{ a: "\ud800" }"#, 7, "a lone surrogate \\uD800"), (#"{ a: "\ud800\u0041" }"#, 7, "a lone surrogate"),
      (#"{ a: "\udc00" }"#, 7, "a lone surrogate \\uDC00"), (#"{ a\u0000: 1 }"#, 4, "a NUL character"),
    ] {
      let found = try #require(JSON5SyntaxError.find(in: Array(bad.utf8)), "\(bad)")
      #expect(found.line == 1 && found.column == column && found.message.hasPrefix(message), "\(found) for \(bad)")
    }
  }
}
