import JetsamWire
import Testing

/// Lines built and read with JetsamWire's vocabulary rather than strings.
@Suite struct TypedLineTests {
  @Test func repliesAreWrittenAsPROTOCOLSays() {
    #expect(AppReply.done.line(requestID: 3).encoded == "reply id=3")
    #expect(AppReply.taskBegun(task: 1).line(requestID: 1).encoded == "reply id=1 task=1")
    #expect(AppReply.timeRemaining(.milliseconds(29950)).line(requestID: 2).encoded == "reply id=2 seconds=29.950")
    #expect(AppReply.timeRemaining(nil).line(requestID: 2).encoded == "reply id=2 seconds=inf")
  }

  @Test func typedLinesSpellTheirWordsAndKeys() throws {
    #expect(AppLine(AppMessageWord.hello, [(.version, "1")]).encoded == "hello version=1")
    #expect(AppLine(.error, [(.code, AppProtocolErrorCode.tooLong.rawValue)]).encoded == "error code=tooLong")
    #expect(try AppLine(parsing: "ack event=4")[.event] == "4")
  }

  @Test func readsAnIntegerField() throws {
    let line = try AppLine(parsing: "reply id=12 seconds=29.950")
    #expect(line.integer(.id) == 12)
    #expect(line.integer(.seconds) == nil)
    #expect(line.integer(.task) == nil)
  }
}
