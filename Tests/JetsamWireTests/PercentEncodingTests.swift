import JetsamWire
import Testing

@Suite struct PercentEncodingTests {
  @Test(arguments: [
    ("page=3 of 10", "page%3D3%20of%2010"),
    ("plain-text_1.2~x", "plain-text_1.2~x"),
    ("a:b/c+d,e@f", "a:b/c+d,e@f"),
    ("line\nbreak", "line%0Abreak"),
    ("crlf\r\n", "crlf%0D%0A"),
    ("100%", "100%25"),
    ("café", "caf%C3%A9"),
    ("", ""),
    ("tab\there", "tab%09here"),
    ("2026-11-29T14:35:35.447Z", "2026-11-29T14:35:35.447Z"),
  ])
  func encodesEveryByteOutsideTheUnreservedSetAsUppercaseHex(value: String, encoded: String) {
    #expect(AppLine.percentEncode(value) == encoded)
    #expect(AppLine.percentDecode(encoded[...]) == value)
  }

  @Test(arguments: [
    "", " ", "=", "a b=c\nd", "%", "%%41", "😀 emoji", "\u{0}", "\u{7F}", String(repeating: "x y", count: 500),
  ])
  func roundTrips(value: String) {
    let encoded = AppLine.percentEncode(value)
    #expect(encoded.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") })
    #expect(AppLine.percentDecode(encoded[...]) == value)
  }

  @Test func decodesLowercaseHexAndKeepsUnencodedPrintableBytes() {
    #expect(AppLine.percentDecode("page%3d3") == "page=3")
    #expect(AppLine.percentDecode("a*b=c") == "a*b=c")
    #expect(AppLine.percentDecode("café") == "café")
  }

  // Exactly what a line holding the value would be refused for.
  @Test(arguments: ["%", "%4", "%G1", "abc%2", "%zz", "a b", "a\rb", "a\tb", "\u{7F}", "%FF", "%C3"])
  func refusesWhatALineWouldRefuse(encoded: String) {
    #expect(AppLine.percentDecode(encoded[...]) == nil)
    #expect(AppLine.parse("x v=\(encoded)"[...]) == nil)
  }
}
