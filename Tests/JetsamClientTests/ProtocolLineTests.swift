import Testing

@testable import JetsamClient

@Suite struct ProtocolLineTests {
  @Test func takesAnEventLineApart() throws {
    let line = try ProtocolLine(
      parsing: "event id=1 name=didFinishLaunching reason=afterExit previousReason=memoryPressure "
        + "previousState=suspended previousTime=2026-11-29T14:35:35.447Z summary=page%3D3 state=foreground")
    #expect(line.word == "event")
    #expect(line.integer("id") == 1)
    #expect(line["name"] == "didFinishLaunching")
    #expect(line["summary"] == "page=3")
    #expect(line["previousTime"] == "2026-11-29T14:35:35.447Z")
    #expect(line["missing"] == nil)
    #expect(line.fields.count == 8)
  }

  @Test func encodesValuesWhenWritten() {
    let line = ProtocolLine("stateSummary", ["value": "page=3 of 10"])
    #expect(line.text == "stateSummary value=page%3D3%20of%2010")
    #expect(ProtocolLine("hello", ["version": "1"]).text == "hello version=1")
    #expect(ProtocolLine("stateSummary", ["value": ""]).text == "stateSummary value=")
  }

  @Test(arguments: [
    ProtocolLine("ack", ["event": "12"]),
    ProtocolLine("beginBackgroundTask", ["id": "3", "name": "upload photos = 3"]),
    ProtocolLine("stateDigest", ["phase": "saved", "value": "9f86d081"]),
    ProtocolLine("error", ["code": "badLine", "message": "a line\nwith %, = and spaces", "id": "4"]),
    ProtocolLine("backgroundTimeRemaining"),
  ])
  func roundTrips(line: ProtocolLine) throws {
    #expect(try ProtocolLine(parsing: line.text) == line)
  }

  @Test func toleratesRunsOfSpacesAndATrailingSpace() throws {
    let line = try ProtocolLine(parsing: "reply  id=2 seconds=29.950 ")
    #expect(line == ProtocolLine("reply", ["id": "2", "seconds": "29.950"]))
  }

  @Test func aRepeatedKeyKeepsItsFirstValueInLookups() throws {
    let line = try ProtocolLine(parsing: "event id=5 name=backgroundTaskWillExpire task=1 name=upload")
    #expect(line["name"] == "backgroundTaskWillExpire")
    #expect(line.fieldDictionary["name"] == "backgroundTaskWillExpire")
  }

  @Test func aValueMayContainAnEqualsSignUnencoded() throws {
    #expect(try ProtocolLine(parsing: "x a=b=c")["a"] == "b=c")
  }

  @Test func rejectsMalformedLines() {
    #expect(throws: ProtocolLine.ParseError.empty) { try ProtocolLine(parsing: "") }
    #expect(throws: ProtocolLine.ParseError.empty) { try ProtocolLine(parsing: "   ") }
    #expect(throws: ProtocolLine.ParseError.malformedField("id")) { try ProtocolLine(parsing: "ack id") }
    #expect(throws: ProtocolLine.ParseError.malformedField("=3")) { try ProtocolLine(parsing: "ack =3") }
    #expect(throws: ProtocolLine.ParseError.malformedValue("value=%G")) {
      try ProtocolLine(parsing: "stateSummary value=%G")
    }
  }

  @Test func parsesFieldsWithoutAWord() throws {
    let fields = try ProtocolLine.parseFields("reason=memoryPressure state=suspended time=2026-11-29T14:35:35.447Z")
    #expect(fields.map(\.key) == ["reason", "state", "time"])
    #expect(fields.map(\.value) == ["memoryPressure", "suspended", "2026-11-29T14:35:35.447Z"])
  }
}
