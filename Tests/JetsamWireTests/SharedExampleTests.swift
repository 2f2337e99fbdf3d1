import JetsamWire
import Testing

/// The lines of `Tests/Fixtures/wire-lines.json`, which the Python client's tests read too: both readers accept
/// and refuse the same lines, with the same messages.
@Suite struct SharedExampleTests {
  @Test(arguments: try WireLineExample.all())
  func readsTheLineAsTheTableSays(example: WireLineExample) throws {
    if example.valid {
      let line = try AppLine(parsing: example.bytes)
      #expect(line == AppLine(try #require(example.word), example.fieldPairs))
      // What a writer makes of it reads back the same.
      #expect(try AppLine(parsing: line.encoded) == line)
    } else {
      let error = #expect(throws: AppLineError.self) { try AppLine(parsing: example.bytes) }
      #expect(error?.description == example.error)
    }
  }

  @Test(arguments: try WireLineExample.all().filter { $0.line != nil })
  func textIsReadAsItsBytes(example: WireLineExample) throws {
    let text = try #require(example.line)
    let fromText = Result { () throws(AppLineError) in try AppLine(parsing: text) }
    let fromBytes = Result { () throws(AppLineError) in try AppLine(parsing: example.bytes) }
    #expect(fromText == fromBytes)
    #expect(AppLine.parse(text[...]) == (try? fromBytes.get()))
  }

  @Test func theTableCoversBothVerdicts() throws {
    let examples = try WireLineExample.all()
    #expect(examples.contains { $0.valid } && examples.contains { !$0.valid })
    #expect(examples.allSatisfy { $0.valid == ($0.word != nil) && $0.valid == ($0.error == nil) })
  }
}
