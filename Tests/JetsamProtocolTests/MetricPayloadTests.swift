import Foundation
import JetsamCore
import JetsamProtocol
import Testing

/// The metric families of `jetsamctl metrics --json`: MetricKit's histograms and measurements, added up from exit
/// records and running launches.
@Suite("Metric payloads")
struct MetricPayloadTests {
  @Test("measurements are written as MetricKit writes them: grouped in thousands, at most three decimals, the unit")
  func measurements() {
    #expect(MetricKitMeasurement.format(12, unit: "sec") == "12 sec")
    #expect(MetricKitMeasurement.format(3.2145, unit: "sec") == "3.215 sec")
    #expect(MetricKitMeasurement.format(0.05, unit: "sec") == "0.05 sec")
    #expect(MetricKitMeasurement.format(200_000, unit: "kB") == "200,000 kB")
    #expect(MetricKitMeasurement.format(1_234_567.5, unit: "ms") == "1,234,567.5 ms")
    #expect(MetricKitMeasurement.format(-1, unit: "ms") == "0 ms")
    #expect(MetricKitMeasurement.value(of: "1,234,567.5 ms") == 1_234_567.5)
  }

  @Test("durations fall in the documented buckets; the last one holds anything longer; merging adds by start")
  func histogram() {
    var histogram = DurationHistogram()
    for seconds in [0.0, 0.049, 0.05, 0.3, 0.4, 600] { histogram.count(seconds: seconds) }
    #expect(
      histogram.buckets == [
        .init(startMilliseconds: 0, endMilliseconds: 50, count: 2),
        .init(startMilliseconds: 50, endMilliseconds: 100, count: 1),
        .init(startMilliseconds: 250, endMilliseconds: 500, count: 2),
        .init(startMilliseconds: 60000, endMilliseconds: 120_000, count: 1),
      ])
    var other = DurationHistogram()
    other.count(seconds: 0.26)
    histogram.merge(other)
    #expect(histogram.total == 7 && histogram.buckets[2].count == 3)
  }

  @Test("a histogram in MetricKit's JSON: histogramNumBuckets, and histogramValue by index with start, end, count")
  func histogramJSON() throws {
    var histogram = DurationHistogram()
    histogram.count(seconds: 0.4)
    histogram.count(seconds: 1.5)
    let data = try JSONEncoder().encode(MetricKitHistogram(histogram))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["histogramNumBuckets"] as? Int == 2)
    let value = try #require(object["histogramValue"] as? [String: [String: Any]])
    #expect(value["0"]?["bucketStart"] as? String == "250 ms")
    #expect(value["0"]?["bucketEnd"] as? String == "500 ms")
    #expect(value["0"]?["bucketCount"] as? Int == 1)
    #expect(value["1"]?["bucketStart"] as? String == "1,000 ms" && value["1"]?["bucketEnd"] as? String == "2,000 ms")
  }

  static func record(cpu: Double, peak: Int64, metrics: LaunchMetrics?) -> ExitRecord {
    ExitRecord(
      time: "2026-01-01T00:00:00Z", app: "a", pid: 1, launch: 1,
      cause: ExitCause(reason: .normalAppExit, terminationReason: "EXIT 0", exitCode: 0),
      lifecycle: ExitLifecycle(state: .foreground, aliveSeconds: 1, stateSeconds: 1),
      usage: ExitResourceUsage(peakMemoryBytes: peak, cpuSeconds: cpu),
      pressure: ExitPressure(level: .normal, availableBytes: 0),
      launchMetrics: metrics)
  }

  @Test("totals add records and a running launch; CPU and memory come from records; old records add no launch")
  func totals() throws {
    var first = LaunchMetrics()
    first.timeToFirstDrawSeconds = 0.3
    first.foregroundSeconds = 3
    first.backgroundSeconds = 1.5
    first.resumeTimes.count(seconds: 0.12)
    var running = LaunchMetrics(afterExit: .memoryPressure)
    running.foregroundSeconds = 2
    running.backgroundAudioSeconds = 0.5
    running.hangTimes.count(seconds: 0.4)
    var totals = MetricTotals()
    totals.count(Self.record(cpu: 1.25, peak: 12_345_678, metrics: first))
    totals.count(Self.record(cpu: 0.5, peak: 2_000_000, metrics: nil))
    totals.add(running)
    let meta = PayloadMetaData(
      bundleIdentifier: "a", osVersion: "Linux", platformArchitecture: "x86_64", deviceType: "")
    let payload = totals.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: meta)
    #expect(payload.applicationExitMetrics.total == 2)
    #expect(payload.applicationLaunchMetrics?.histogrammedTimeToFirstDrawKey.total == 1)
    #expect(payload.applicationLaunchMetrics?.histogrammedResumeTime.total == 1)
    #expect(payload.applicationResponsivenessMetrics?.histogrammedAppHangTime.total == 1)
    #expect(payload.applicationTimeMetrics?.cumulativeForegroundTime == "5 sec")
    #expect(payload.applicationTimeMetrics?.cumulativeBackgroundTime == "1.5 sec")
    #expect(payload.applicationTimeMetrics?.cumulativeBackgroundAudioTime == "0.5 sec")
    #expect(payload.cpuMetrics?.cumulativeCPUTime == "1.75 sec")
    #expect(payload.memoryMetrics?.peakMemoryUsage == "12,346 kB")

    // Split by what ended the launch before: the cold launch after a jetsam kill apart from the fresh one.
    var relaunch = LaunchMetrics(afterExit: .memoryPressure)
    relaunch.timeToFirstDrawSeconds = 1.2
    totals.add(relaunch)
    let split = try #require(
      totals.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: meta).applicationLaunchMetrics?
        .jetsamHistogrammedTimeToFirstDrawByPreviousExit)
    #expect(split.keys.sorted() == ["fresh", "memoryPressure"])
    #expect(split["fresh"]?.total == 1 && split["memoryPressure"]?.total == 1)
    #expect(split["memoryPressure"]?.histogramValue.values.first?.bucketStart == "1,000 ms")

    var old = MetricTotals()
    old.count(Self.record(cpu: 0, peak: 0, metrics: nil))
    let oldPayload = old.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: meta)
    #expect(oldPayload.applicationLaunchMetrics == nil && oldPayload.applicationTimeMetrics == nil)
    #expect(oldPayload.cpuMetrics != nil)
  }
}
