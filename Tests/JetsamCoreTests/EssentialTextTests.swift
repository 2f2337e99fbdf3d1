import JetsamCore
import Testing

/// The text helpers that stand in for Foundation's in jetsamd (which links only FoundationEssentials).
@Suite("Text without Foundation")
struct EssentialTextTests {
  @Test(
    "exactly N decimals, halves rounded away from zero",
    arguments: [
      (0.0, 1, "0.0"), (3.0, 1, "3.0"), (2.25, 1, "2.3"), (-2.25, 1, "-2.3"), (0.04, 1, "0.0"), (-0.04, 1, "0.0"),
      (1.0005, 3, "1.001"), (12.3456, 3, "12.346"), (0.001, 3, "0.001"), (7.9999, 0, "8"), (123_456.5, 2, "123456.50"),
    ])
  func decimals(value: Double, digits: Int, expected: String) {
    #expect(value.formatted(decimals: digits) == expected)
  }

  @Test("trimming spaces, tabs and line breaks at both ends only")
  func trimming() {
    #expect("  a b \t\n".trimmingWhitespace == "a b")
    #expect("\n\r\n".trimmingWhitespace == "")
    #expect("x".trimmingWhitespace == "x")
    #expect("12M\n"[...].trimmingWhitespace == "12M")
  }

  @Test("path parts, as dirname and basename")
  func paths() {
    #expect(directoryPart(of: "/etc/jetsam/jetsamd.json5") == "/etc/jetsam")
    #expect(directoryPart(of: "/jetsamd.json5") == "/")
    #expect(directoryPart(of: "jetsamd.json5") == ".")
    #expect(lastPathComponent(of: "/etc/jetsam/jetsamd.json5") == "jetsamd.json5")
    #expect(lastPathComponent(of: "plain") == "plain")
  }
}
