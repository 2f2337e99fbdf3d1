import Foundation
import JetsamCore
import Testing

/// MetricKit's exit counts: which side and counter each record goes to, and the keys they are written with.
@Suite("MetricKit exit counts")
struct AppExitMetricsTests {
  static func record(_ reason: ExitReason, _ state: CoarseState) -> ExitRecord {
    ExitRecord(
      app: "a", pid: 1, launch: 1,
      cause: ExitCause(reason: reason, terminationReason: ""),
      lifecycle: ExitLifecycle(state: state, aliveSeconds: 1, stateSeconds: 1),
      pressure: ExitPressure(level: .normal, availableBytes: 0))
  }

  @Test("foreground exits count in the foreground; background and suspended ones in the background")
  func sides() {
    var metrics = AppExitMetrics()
    metrics.count(Self.record(.badAccess, .foreground))
    metrics.count(Self.record(.memoryPressure, .suspended))
    metrics.count(Self.record(.memoryPressure, .background))
    metrics.count(Self.record(.memoryPressure, .foreground))
    #expect(metrics.foregroundExitData.counts == [.badAccess: 1, .memoryPressure: 1])
    #expect(metrics.backgroundExitData.counts == [.memoryPressure: 2])
    #expect(metrics.total == 4)
  }

  @Test("MetricKit's keys: each side's standard counters always, others only when they happened")
  func keys() throws {
    #expect(ExitReason.normalAppExit.metricKitCounterKey == "cumulativeNormalAppExitCount")
    #expect(ExitReason.cpuResourceLimit.metricKitCounterKey == "cumulativeCPUResourceLimitExitCount")
    #expect(
      ExitReason.backgroundTaskAssertionTimeout.metricKitCounterKey
        == "cumulativeBackgroundTaskAssertionTimeoutExitCount")
    var metrics = AppExitMetrics()
    metrics.count(Self.record(.memoryPressure, .foreground))
    let json = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(metrics)) as? [String: [String: Int]])
    let foreground = try #require(json["foregroundExitData"])
    #expect(foreground.count == 7, "six standard counters, and the memory-pressure exit that happened")
    #expect(foreground["cumulativeMemoryPressureExitCount"] == 1 && foreground["cumulativeAbnormalExitCount"] == 0)
    #expect(json["backgroundExitData"]?.count == 10)
    #expect(try JSONDecoder().decode(AppExitMetrics.self, from: JSONEncoder().encode(metrics)) == metrics)
  }
}
