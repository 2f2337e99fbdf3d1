import Foundation
import JetsamCore
import JetsamProtocol
import Testing

/// `signpostMetrics` in MetricKit's layout (MXSignpostMetric), added up over launches with the names bounded.
@Suite("Signpost metric payloads")
struct SignpostPayloadTests {
  static func figures(count: Int, measured: Bool) -> SignpostFigures {
    var figures = SignpostFigures()
    figures.totalCount = count
    for _ in 0..<count { figures.durations.count(seconds: 0.3) }
    if measured {
      figures.measuredIntervals = count
      figures.cpuSeconds = 1.2345
      figures.memoryBytesSum = Double(count) * 2_000_000
      figures.bytesWritten = 1_500_000
    }
    return figures
  }

  @Test("a name's count, durations in ms, CPU time in ms, average memory and writes in kB, MetricKit's keys")
  func payload() throws {
    var metrics = LaunchMetrics()
    metrics.signposts = [
      "save": Self.figures(count: 2, measured: true), "tick": Self.figures(count: 0, measured: false),
    ]
    metrics.signposts["tick"]?.totalCount = 5
    var totals = MetricTotals()
    totals.add(metrics)
    totals.add(metrics)
    let payload = totals.payload(
      timeStampBegin: "2026-12-01 00:00:00 +0000", timeStampEnd: "2026-12-02 00:00:00 +0000",
      metaData: PayloadMetaData(bundleIdentifier: "a", osVersion: "x", platformArchitecture: "y", deviceType: "z"))
    let signposts = try #require(payload.signpostMetrics)
    #expect(signposts.map(\.signpostName) == ["save", "tick"])
    let save = signposts[0]
    #expect(save.totalSignpostCount == 4)
    #expect(save.signpostCategory == "app")
    let data = save.signpostIntervalData
    #expect(data.histogrammedSignpostDurations.histogramValue["0"]?.bucketStart == "250 ms")
    #expect(data.histogrammedSignpostDurations.total == 4)
    #expect(data.signpostCumulativeCPUTime == "2,469 ms")
    #expect(data.signpostAverageMemory == "2,000 kB")
    #expect(data.signpostCumulativeLogicalWrites == "3,000 kB")
    #expect(signposts[1].totalSignpostCount == 10)
    #expect(signposts[1].signpostIntervalData.signpostAverageMemory == nil, "no interval measured: no cost")
    let json = String(decoding: try JSONEncoder().encode(save), as: UTF8.self)
    for key in [
      "signpostName", "signpostCategory", "totalSignpostCount", "histogrammedSignpostDurations",
      "signpostCumulativeCPUTime", "signpostAverageMemory", "signpostCumulativeLogicalWrites",
    ] {
      #expect(json.contains("\"\(key)\""), "\(key) in \(json)")
    }
  }

  @Test("no signposts: no signpostMetrics; names over launches bounded at 32")
  func bounded() throws {
    var totals = MetricTotals()
    totals.add(LaunchMetrics())
    #expect(
      totals.payload(
        timeStampBegin: "", timeStampEnd: "",
        metaData: PayloadMetaData(bundleIdentifier: "a", osVersion: "x", platformArchitecture: "y", deviceType: "z")
      ).signpostMetrics == nil)
    for launch in 0..<3 {
      var metrics = LaunchMetrics()
      for index in 0..<20 { metrics.signposts["l\(launch)n\(index)"] = Self.figures(count: 1, measured: false) }
      totals.add(metrics)
    }
    #expect(totals.signposts.count == LaunchMetrics.maxSignpostNames)
  }
}
