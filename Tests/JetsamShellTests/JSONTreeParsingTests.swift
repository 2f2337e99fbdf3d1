import Foundation
import JetsamTestTraits
import Testing

@testable import JetsamConfig
@testable import JetsamShell

@Suite("Strict JSON parsing of control requests", .offThePool)
struct JSONTreeParsingTests {
  /// Valid texts: the parser reads each as Foundation's JSONDecoder reads it.
  static let valid: [String] = [
    #"{"v":1,"verb":"ps"}"#,
    #"  { "apps" : [ "a" , "b" ], "n": null, "t": true, "f": false }  "#,
    #"{"empty":{},"list":[],"nested":[[1,[2,{"x":[]}]]]}"#,
    #"{"i":-42,"zero":0,"negzero":-0,"big":9223372036854775807,"small":-9223372036854775808}"#,
    #"{"d":1.5,"e":1e3,"E":-2.5E-3,"over":9223372036854775808}"#,
    #"{"esc":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u4e2d","pair":"\ud83d\ude00","raw":"héllo ☃ 😀"}"#,
    #"["top", "level", 1]"#,
    #""just a string""#,
  ]

  @Test("valid JSON parses as JSONDecoder reads it", arguments: valid)
  func matchesJSONDecoder(text: String) throws {
    let parsed = try JSONTree.parse(Array(text.utf8))
    let decoded = try JSONDecoder().decode(JSONTree.self, from: Data(text.utf8))
    #expect(parsed.json == decoded.json)
  }

  @Test("integers stay integers, fractions and out-of-range numbers are numbers")
  func numbers() throws {
    guard
      case .object(let object) = try JSONTree.parse(Array(#"{"a":7,"b":7.5,"c":1e2,"d":99999999999999999999}"#.utf8))
    else {
      Issue.record("not an object")
      return
    }
    #expect(object["a"].map { "\($0)" } == "\(JSONTree.integer(7))")
    #expect(object["b"].map { "\($0)" } == "\(JSONTree.number(7.5))")
    #expect(object["c"].map { "\($0)" } == "\(JSONTree.number(100))")
    #expect(object["d"].map { "\($0)" } == "\(JSONTree.number(1e20))")
  }

  struct Invalid: Sendable, CustomStringConvertible {
    let bytes: [UInt8]
    let offset: Int
    let reason: String
    var description: String { String(decoding: bytes, as: UTF8.self).debugDescription }
  }

  static let invalid: [Invalid] = [
    Invalid(bytes: Array("".utf8), offset: 0, reason: "unexpected end of text"),
    Invalid(bytes: Array("garbage".utf8), offset: 0, reason: "unexpected 'g'"),
    Invalid(bytes: Array(#"{"v":1,"verb":"ps""#.utf8), offset: 18, reason: "expected ',' or '}' in an object"),
    Invalid(bytes: Array(#"{"v":1,}"#.utf8), offset: 7, reason: "expected a string key"),
    Invalid(bytes: Array(#"{"v" 1}"#.utf8), offset: 5, reason: "expected ':' after key \"v\""),
    Invalid(bytes: Array("[1,2".utf8), offset: 4, reason: "expected ',' or ']' in an array"),
    Invalid(bytes: Array("[01]".utf8), offset: 2, reason: "expected ',' or ']' in an array"),
    Invalid(bytes: Array("-".utf8), offset: 1, reason: "expected a digit"),
    Invalid(bytes: Array("1.".utf8), offset: 2, reason: "expected a digit after '.'"),
    Invalid(bytes: Array("1e+".utf8), offset: 3, reason: "expected a digit in the exponent"),
    Invalid(bytes: Array("tru".utf8), offset: 0, reason: "unexpected 't'"),
    Invalid(bytes: Array(#""abc"#.utf8), offset: 4, reason: "unterminated string"),
    Invalid(bytes: Array("\"a\u{01}\"".utf8), offset: 2, reason: "control character byte 0x1 in a string"),
    Invalid(bytes: Array(#""\x""#.utf8), offset: 2, reason: "unknown escape after '\\': 'x'"),
    Invalid(bytes: Array(#""\u12""#.utf8), offset: 5, reason: "expected 4 hex digits after \\u"),
    Invalid(bytes: Array(#""\ud83d""#.utf8), offset: 7, reason: "a lone surrogate \\uD83D"),
    Invalid(bytes: Array(#""\ude00""#.utf8), offset: 7, reason: "a lone surrogate \\uDE00"),
    Invalid(bytes: Array(#""\ud83d\u0041""#.utf8), offset: 13, reason: "a lone surrogate in a \\u pair"),
    Invalid(bytes: [0x22, 0x61, 0xFF, 0x22], offset: 1, reason: "a string that is not valid UTF-8"),
    Invalid(bytes: [0x22, 0xC3, 0x22], offset: 1, reason: "a string that is not valid UTF-8"),
    Invalid(bytes: Array("{} {}".utf8), offset: 3, reason: "text after the JSON value"),
    Invalid(bytes: Array("[1] \u{0}".utf8), offset: 4, reason: "text after the JSON value"),
  ]

  @Test("invalid JSON is refused with the byte where it goes wrong", arguments: invalid)
  func refusesInvalid(example: Invalid) {
    #expect(throws: JSONSyntaxError(offset: example.offset, reason: example.reason)) {
      try JSONTree.parse(example.bytes)
    }
  }

  @Test("nesting is bounded, so a hostile [[[[… cannot exhaust the stack")
  func depthIsBounded() throws {
    let fine =
      String(repeating: "[", count: JSONTree.maximumDepth) + String(repeating: "]", count: JSONTree.maximumDepth)
    _ = try JSONTree.parse(Array(fine.utf8))
    let hostile = Array(String(repeating: "[", count: 1_000_000).utf8)
    #expect(throws: JSONSyntaxError(offset: JSONTree.maximumDepth, reason: "nested deeper than 64 levels")) {
      try JSONTree.parse(hostile)
    }
  }
}
