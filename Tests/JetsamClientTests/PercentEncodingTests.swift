import Testing

@testable import JetsamClient

@Suite struct PercentEncodingTests {
  @Test(arguments: [
    ("page=3 of 10", "page%3D3%20of%2010"),
    ("plain-text_1.2~x", "plain-text_1.2~x"),
    ("a:b/c+d,e@f", "a:b/c+d,e@f"),
    ("line\nbreak", "line%0Abreak"),
    ("100%", "100%25"),
    ("café", "caf%C3%A9"),
    ("", ""),
    ("tab\there", "tab%09here"),
    ("2026-11-29T14:35:35.447Z", "2026-11-29T14:35:35.447Z"),
  ])
  func encodesEveryByteOutsideTheUnreservedSetAsUppercaseHex(value: String, encoded: String) {
    #expect(PercentEncoding.encode(value) == encoded)
    #expect(PercentEncoding.decode(encoded) == value)
  }

  @Test(arguments: ["", " ", "=", "a b=c\nd", "%", "%%41", "😀 emoji", "\u{0}", String(repeating: "x y", count: 500)])
  func roundTrips(value: String) {
    let encoded = PercentEncoding.encode(value)
    #expect(!encoded.contains(" ") && !encoded.contains("=") && !encoded.contains("\n"))
    #expect(PercentEncoding.decode(encoded) == value)
  }

  @Test func decodesLowercaseHexAndKeepsUnencodedBytes() {
    #expect(PercentEncoding.decode("page%3d3") == "page=3")
    #expect(PercentEncoding.decode("a*b") == "a*b")
  }

  @Test(arguments: ["%", "%4", "%G1", "abc%2", "%zz"])
  func rejectsAPercentWithoutTwoHexDigits(encoded: String) {
    #expect(PercentEncoding.decode(encoded) == nil)
  }
}
