import JetsamWire
import Testing

/// What the error says beyond its message: the problem, the field and the column, for a daemon or client that
/// acts on them. The messages themselves are in the shared table (`SharedExampleTests`).
@Suite struct AppLineErrorTests {
  @Test(arguments: [
    ("", AppLineError(.noWord, field: nil, column: 1, part: [])),
    ("he1lo", AppLineError(.wordNotLetters, field: nil, column: 3, part: Array("he1lo".utf8))),
    ("ack  event", AppLineError(.fieldWithoutEquals, field: 1, column: 6, part: Array("event".utf8))),
    ("ack =1", AppLineError(.emptyKey, field: 1, column: 5, part: Array("=1".utf8))),
    ("x a=1 b2=2", AppLineError(.keyNotLetters, field: 2, column: 8, part: Array("b2=2".utf8))),
    ("x a=%4x", AppLineError(.malformedEscape, field: 1, column: 5, part: Array("a=%4x".utf8))),
    ("x a=1\r", AppLineError(.unencodedByte(0x0D), field: 1, column: 6, part: Array("a=1\r".utf8))),
    ("x a=%E2%82", AppLineError(.notUTF8, field: 1, column: 5, part: Array("a=%E2%82".utf8))),
  ])
  func namesTheProblemTheFieldAndTheColumn(text: String, expected: AppLineError) {
    #expect(throws: expected) { try AppLine(parsing: text) }
  }

  @Test func aQuotedFieldIsCutSoThatTheMessageFitsInAnErrorLine() {
    let field = "v=" + String(repeating: "%FF", count: 1300)
    let error = #expect(throws: AppLineError.self) { try AppLine(parsing: "x " + field) }
    let message = error?.description ?? ""
    #expect(message.hasSuffix(#""… at column 5: the value does not decode to UTF-8"#))
    #expect(AppLine("error", [("code", "badLine"), ("message", message)]).encoded.utf8.count < AppLine.maxBytes)
  }
}
