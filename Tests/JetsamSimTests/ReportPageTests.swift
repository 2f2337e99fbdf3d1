import JetsamReportPage
import Testing

/// The reports' shared formatting: fixed decimals, grouped counts, escaping, axis ticks and labels.
@Suite struct ReportPageTests {
  @Test func fixedDecimals() {
    #expect(ReportPage.fixed(2.375, 2) == "2.38")
    #expect(ReportPage.fixed(0.04, 1) == "0.0")
    #expect(ReportPage.fixed(-1.25, 1) == "-1.3")
    #expect(ReportPage.fixed(-0.01, 1) == "0.0")
    #expect(ReportPage.fixed(1234.5, 0) == "1235")
    #expect(ReportPage.fixed(3, 2) == "3.00")
  }

  @Test func groupedCounts() {
    #expect(ReportPage.grouped(0) == "0")
    #expect(ReportPage.grouped(999) == "999")
    #expect(ReportPage.grouped(1000) == "1,000")
    #expect(ReportPage.grouped(-1_234_567) == "-1,234,567")
  }

  @Test func escaping() {
    #expect(ReportPage.escape(#"<a href="x">&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;")
    #expect(ReportPage.escape("a\u{1}b\nc") == "a?b&#10;c")
  }

  @Test func ticks() {
    #expect(ReportPage.timeTick(86_400) == 7200)
    #expect(ReportPage.timeTick(6 * 3600) == 1800)
    #expect(ReportPage.timeTick(365 * 86_400) == 2_592_000 * 2)
    #expect(ReportPage.timeTick(1) == 0.1)
    #expect(ReportPage.countTick(0) == 1)
    #expect(ReportPage.countTick(32) == 10)
    #expect(ReportPage.countTick(2024) == 500)
  }

  @Test func timeLabels() {
    #expect(ReportPage.timeLabel(0) == "0")
    #expect(ReportPage.timeLabel(86_400) == "1d")
    #expect(ReportPage.timeLabel(7200) == "2h")
    #expect(ReportPage.timeLabel(300) == "5m")
    #expect(ReportPage.timeLabel(45) == "45s")
    #expect(ReportPage.timeLabel(0.5) == "0.5s")
    #expect(ReportPage.timeLabel(5400) == "1h30m")
    #expect(ReportPage.timeLabel(75) == "1m15s")
    #expect(ReportPage.timeLabel(86_400 + 3600 + 1) == "1d1h1s")
  }
}
