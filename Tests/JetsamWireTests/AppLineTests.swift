import JetsamWire
import Testing

@Suite struct AppLineTests {
  @Test func encodesValuesWhenWritten() {
    #expect(AppLine("stateSummary", [("value", "page=3 of 10")]).encoded == "stateSummary value=page%3D3%20of%2010")
    #expect(AppLine("hello", [("version", "1")]).encoded == "hello version=1")
    #expect(AppLine("stateSummary", [("value", "")]).encoded == "stateSummary value=")
    #expect(AppLine("backgroundTimeRemaining").encoded == "backgroundTimeRemaining")
  }

  @Test(arguments: [
    AppLine("ack", [("event", "12")]),
    AppLine("beginBackgroundTask", [("id", "3"), ("name", "upload photos = 3")]),
    AppLine("stateDigest", [("phase", "saved"), ("value", "9f86d081")]),
    AppLine("error", [("code", "badLine"), ("message", "a line\nwith %, = and spaces\r\t"), ("id", "4")]),
    AppLine("event", [("id", "5"), ("name", "backgroundTaskWillExpire"), ("name", "upload")]),
    AppLine("backgroundTimeRemaining"),
  ])
  func roundTrips(line: AppLine) throws {
    #expect(try AppLine(parsing: line.encoded) == line)
    #expect(AppLine.parse(line.encoded[...]) == line)
  }

  @Test func looksUpTheFirstValueOfAKey() throws {
    let line = try AppLine(parsing: "event id=5 name=backgroundTaskWillExpire task=1 name=upload")
    #expect(line["name"] == "backgroundTaskWillExpire")
    #expect(line["task"] == "1")
    #expect(line["missing"] == nil)
    #expect(line.fields.map(\.key) == ["id", "name", "task", "name"])
  }

  @Test func equalityComparesWordAndFieldsInOrder() {
    #expect(AppLine("x", [("a", "1"), ("b", "2")]) == AppLine("x", [("a", "1"), ("b", "2")]))
    #expect(AppLine("x", [("a", "1"), ("b", "2")]) != AppLine("x", [("b", "2"), ("a", "1")]))
    #expect(AppLine("x", [("a", "1")]) != AppLine("y", [("a", "1")]))
    #expect(AppLine("x", [("a", "1")]) != AppLine("x", [("a", "1"), ("a", "1")]))
  }

  @Test func parseGivesNilWhereParsingThrows() {
    #expect(AppLine.parse("ack event=1") == AppLine("ack", [("event", "1")]))
    #expect(AppLine.parse("ack event") == nil)
    #expect(AppLine.parse("") == nil)
  }

  @Test func parsesFieldsWithoutAWord() throws {
    let fields = try AppLine.parseFields("reason=memoryPressure state=suspended time=2026-11-29T14:35:35.447Z")
    #expect(fields.map(\.key) == ["reason", "state", "time"])
    #expect(fields.map(\.value) == ["memoryPressure", "suspended", "2026-11-29T14:35:35.447Z"])
    #expect(try AppLine.parseFields("").isEmpty)
  }

  @Test func fieldsWithoutAWordAreNumberedFromOne() {
    let error = #expect(throws: AppLineError.self) { try AppLine.parseFields("reason=x  state") }
    #expect(error?.description == #"field 2 "state" at column 11: a field is key=value"#)
  }
}
