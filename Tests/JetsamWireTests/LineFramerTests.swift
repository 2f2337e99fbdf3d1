import JetsamWire
import Testing

@Suite struct LineFramerTests {
  private func line(_ text: String) -> LineFramer.Output { .line(Array(text.utf8)) }

  @Test func joinsLinesSplitAcrossReads() {
    var framer = LineFramer()
    #expect(framer.append("hello vers".utf8) == [])
    #expect(framer.append("ion=1\nevent id=1 ".utf8) == [line("hello version=1")])
    #expect(framer.append("name=didBecomeActive\n".utf8) == [line("event id=1 name=didBecomeActive")])
  }

  @Test func deliversEveryLineOfOneRead() {
    var framer = LineFramer()
    #expect(framer.append("a\nb\n\nc".utf8) == [line("a"), line("b"), line("")])
    #expect(framer.append("\n".utf8) == [line("c")])
  }

  @Test func deliversEmptyLinesForTheReaderToJudge() {
    var framer = LineFramer()
    #expect(framer.append("\n\n".utf8) == [line(""), line("")])
  }

  @Test func keepsACarriageReturnInTheLine() {
    // The protocol's lines end with \n alone; a CR is the line's last byte, which the parser then refuses.
    var framer = LineFramer()
    #expect(framer.append("hello\r\n".utf8) == [line("hello\r")])
  }

  @Test func aLineOfExactlyTheLimitIncludingItsNewlineIsKept() {
    var framer = LineFramer(maxBytes: 8)
    #expect(framer.append("1234567\n".utf8) == [line("1234567")])
    #expect(framer.append("12345678\n".utf8) == [.tooLong])
    #expect(framer.append("ok\n".utf8) == [line("ok")])
  }

  @Test func theProtocolsLimitIs4096BytesWithTheNewline() {
    var framer = LineFramer()
    #expect(framer.maxBytes == AppLine.maxBytes)
    let longest = [UInt8](repeating: UInt8(ascii: "a"), count: AppLine.maxBytes - 1)
    #expect(framer.append(longest + [UInt8(ascii: "\n")]) == [.line(longest)])
    #expect(framer.append(longest + [UInt8(ascii: "a"), UInt8(ascii: "\n")]) == [.tooLong])
  }

  @Test func reportsAnOverlongLineOnceAsSoonAsItIsKnownAndResumesAfterItsNewline() {
    var framer = LineFramer(maxBytes: 8)
    #expect(framer.append("short\n".utf8) == [line("short")])
    #expect(framer.append("0123456".utf8) == [])
    #expect(framer.append("789abc".utf8) == [.tooLong])
    #expect(framer.append(String(repeating: "x", count: 100).utf8) == [])
    #expect(framer.append("def\nok\n".utf8) == [line("ok")])
  }

  @Test func anOverlongLineWhoseNewlineIsInTheSameReadIsStillRefused() {
    var framer = LineFramer(maxBytes: 8)
    #expect(framer.append("0123456789\nok\n".utf8) == [.tooLong, line("ok")])
  }

  @Test func aLineWithoutItsNewlineIsNeverDelivered() {
    var framer = LineFramer()
    #expect(framer.append("partial".utf8) == [])
  }
}
