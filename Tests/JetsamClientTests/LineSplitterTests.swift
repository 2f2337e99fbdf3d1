import Testing

@testable import JetsamClient

@Suite struct LineSplitterTests {
  @Test func joinsLinesSplitAcrossReads() {
    var splitter = LineSplitter()
    #expect(splitter.feed(Array("hello vers".utf8)) == [])
    #expect(splitter.feed(Array("ion=1\nevent id=1 ".utf8)) == [.line("hello version=1")])
    #expect(
      splitter.feed(Array("name=didBecomeActive\n\n".utf8)) == [.line("event id=1 name=didBecomeActive"), .line("")])
  }

  @Test func dropsAnOverlongLineAndResumesAtTheNextNewline() {
    var splitter = LineSplitter(maximumLength: 8)
    #expect(splitter.feed(Array("short\n".utf8)) == [.line("short")])
    #expect(splitter.feed(Array("0123456789abc".utf8)) == [.tooLong])
    #expect(splitter.feed(Array("def\nok\n".utf8)) == [.line("ok")])
  }

  @Test func aLineOfExactlyTheLimitIncludingItsNewlineIsKept() {
    var splitter = LineSplitter(maximumLength: 8)
    #expect(splitter.feed(Array("1234567\n".utf8)) == [.line("1234567")])
    #expect(splitter.feed(Array("12345678\n".utf8)) == [.tooLong])
  }
}
