import Foundation
import JetsamCore
import JetsamProtocol
import Testing

/// `memoryMetrics.averageSuspendedMemory` (MetricKit's MXAverage) and `diskIOMetrics`, added up over launches, and
/// running launches' CPU time and peak memory.
@Suite("Memory, disk and CPU payloads")
struct MemoryDiskPayloadTests {
  static let meta = PayloadMetaData(
    bundleIdentifier: "a", osVersion: "Linux", platformArchitecture: "x86_64", deviceType: "")

  @Test("averageSuspendedMemory is pooled over launches, in kB, with sampleCount and standardDeviation as MXAverage")
  func averageSuspendedMemory() throws {
    var first = LaunchMetrics()
    first.suspendedMemory.hold(bytes: 100_000, for: 1)
    first.bytesWritten = 1_500_000
    var second = LaunchMetrics()
    second.suspendedMemory.hold(bytes: 300_000, for: 3)
    second.bytesWritten = 500
    var totals = MetricTotals()
    totals.count(MetricPayloadTests.record(cpu: 1, peak: 400_000, metrics: first))
    totals.add(second)
    var payload = totals.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: Self.meta)
    // The samples are counted by the policy as it reads; here the averages were built by hand.
    #expect(payload.memoryMetrics?.averageSuspendedMemory?.averageValue == "250 kB")
    #expect(payload.diskIOMetrics?.cumulativeLogicalWrites == "1,501 kB")
    payload.appVersion = "1"
    let object = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(payload)) as? [String: Any])
    let memory = try #require(object["memoryMetrics"] as? [String: Any])
    let average = try #require(memory["averageSuspendedMemory"] as? [String: Any])
    #expect(Set(average.keys) == ["averageValue", "standardDeviation", "sampleCount"])
    #expect(average["standardDeviation"] as? Double == 87, "√7500 kB², a bare number in the average's unit")
    #expect((object["diskIOMetrics"] as? [String: Any])?["cumulativeLogicalWrites"] as? String == "1,501 kB")
  }

  @Test("a running launch's CPU time and peak memory are in the payload without any record")
  func runningUsage() {
    var totals = MetricTotals()
    totals.add(LaunchMetrics())
    #expect(totals.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: Self.meta).cpuMetrics == nil)
    totals.addUsage(cpuSeconds: 0.25, peakMemoryBytes: 5_000_000)
    let payload = totals.payload(timeStampBegin: "b", timeStampEnd: "e", metaData: Self.meta)
    #expect(payload.cpuMetrics?.cumulativeCPUTime == "0.25 sec")
    #expect(payload.memoryMetrics?.peakMemoryUsage == "5,000 kB")
    #expect(payload.memoryMetrics?.averageSuspendedMemory == nil, "never suspended: no average")
    #expect(payload.diskIOMetrics == nil, "no reading: no writes figure")
  }
}
