import JetsamWire
import Testing

/// Durations on the wire: three decimals out, plain decimal seconds in.
@Suite struct AppLineSecondsTests {
  @Test func durationsAreWrittenWithThreeDecimals() {
    #expect(AppLine.seconds(.milliseconds(12_045)) == "12.045")
    #expect(AppLine.seconds(.seconds(11)) == "11.000")
    #expect(AppLine.seconds(.microseconds(999)) == "0.000", "below a millisecond")
    #expect(AppLine.seconds(.seconds(-3)) == "0.000", "nothing negative on the wire")
  }

  @Test func onlyPlainDecimalSecondsWithinTheLimitAreRead() {
    let limit = Duration.seconds(100)
    #expect(AppLine.duration(seconds: "2.5", limit: limit) == .milliseconds(2500))
    #expect(AppLine.duration(seconds: "100", limit: limit) == .seconds(100))
    #expect(AppLine.duration(seconds: ".5", limit: limit) == .milliseconds(500))
    for bad in ["", ".", "100.001", "-1", "+1", "1e1", "inf", "nan", "0x10", "1.2.3", " 1"] {
      #expect(AppLine.duration(seconds: bad, limit: limit) == nil, "\(bad)")
    }
  }
}
