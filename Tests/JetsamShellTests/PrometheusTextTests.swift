import JetsamTestTraits
import Testing

@testable import JetsamShell

/// The exposition's text format: what promtool and scrapers parse.
@Suite("Prometheus text", .offThePool)
struct PrometheusTextTests {
  @Test("a family: HELP and TYPE once, then its samples; label values and HELP escaped; an empty one left out")
  func families() {
    var text = PrometheusText()
    text.family(
      "jetsam_exits_total", .counter, help: "Exits\\by \"app\"\nand reason.",
      [.init([("app", #"a"b\c"#), ("reason", "x\ny")], 2), .init([("app", "m")], 0.5)])
    text.family("jetsam_empty", .gauge, help: "Nothing.", [])
    text.family("jetsam_level", .gauge, help: "A level.", [.init(3)])
    #expect(
      text.text == """
        # HELP jetsam_exits_total Exits\\\\by "app"\\nand reason.
        # TYPE jetsam_exits_total counter
        jetsam_exits_total{app="a\\"b\\\\c",reason="x\\ny"} 2
        jetsam_exits_total{app="m"} 0.5
        # HELP jetsam_level A level.
        # TYPE jetsam_level gauge
        jetsam_level 3

        """)
  }

  @Test("values: integers without a fraction, infinities and NaN as Prometheus writes them")
  func values() {
    #expect(PrometheusText.format(2_147_483_648) == "2147483648")
    #expect(PrometheusText.format(0.25) == "0.25")
    #expect(PrometheusText.format(.infinity) == "+Inf" && PrometheusText.format(-.infinity) == "-Inf")
    #expect(PrometheusText.format(.nan) == "NaN")
  }

  @Test("a histogram: cumulative buckets by bound, +Inf as the count, and the sum")
  func histogram() {
    var latency = LatencyHistogram()
    latency.observe(.microseconds(300))
    latency.observe(.milliseconds(2))
    latency.observe(.seconds(10))
    var text = PrometheusText()
    text.histogram("jetsam_kill_latency_seconds", help: "Latency.", latency)
    let lines = text.text.split(separator: "\n").map(String.init)
    #expect(lines[1] == "# TYPE jetsam_kill_latency_seconds histogram")
    #expect(lines.contains(#"jetsam_kill_latency_seconds_bucket{le="0.00025"} 0"#))
    #expect(lines.contains(#"jetsam_kill_latency_seconds_bucket{le="0.0005"} 1"#))
    #expect(lines.contains(#"jetsam_kill_latency_seconds_bucket{le="0.0025"} 2"#))
    #expect(lines.contains(#"jetsam_kill_latency_seconds_bucket{le="5"} 2"#))
    #expect(lines.contains(#"jetsam_kill_latency_seconds_bucket{le="+Inf"} 3"#))
    #expect(lines.contains("jetsam_kill_latency_seconds_count 3"))
    #expect(lines.contains("jetsam_kill_latency_seconds_sum 10.0023"))
  }
}
