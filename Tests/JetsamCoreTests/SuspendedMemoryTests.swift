import Foundation
import JetsamCore
import JetsamValues
import Testing

/// `averageSuspendedMemory`: the time-weighted average of a suspended app's memory, read at the suspension and in
/// rounds while suspended, kept as running sums; and the launch's bytes written, from the disk-write monitor.
@Suite("Suspended memory and bytes written")
struct SuspendedMemoryTests {
  /// App `a` (pid 10) launched into the background at t(0), with the disk-write monitor on, and suspended at
  /// `suspendedAt`; the actions of the suspension.
  static func policy() -> JetsamPolicy {
    var config = testConfig()
    config.suspendedMemoryInterval = .seconds(2)
    return JetsamPolicy(config: config)
  }

  static func suspended(_ policy: inout JetsamPolicy, at suspendedAt: Instant) throws -> [PolicyAction] {
    try DiskWriteMonitorTests.start(&policy, "a", pid: 10)
    return try policy.handle(.suspend(app: "a", at: suspendedAt))
  }

  static func memoryReads(_ actions: [PolicyAction]) -> [AppProcessRef]? {
    for case .sampleSuspendedMemory(let refs) in actions { return refs }
    return nil
  }

  static func reading(_ policy: inout JetsamPolicy, _ bytes: Int64, at: Instant, pid: Int32 = 10) {
    policy.observe(.suspendedMemorySampled([SuspendedMemorySample(app: "a", pid: pid, bytes: bytes)], at: at))
  }

  @Test("the average is time-weighted: 100 held 1 s and 300 held 3 s average 250, deviation √7500")
  func timeWeighted() {
    var average = SuspendedMemoryAverage()
    average.hold(bytes: 100, for: 1)
    average.hold(bytes: 300, for: 3)
    #expect(average.averageBytes == 250)
    #expect(abs(average.standardDeviationBytes - 7500.0.squareRoot()) < 1e-9)
    #expect(average.seconds == 4)
  }

  @Test("two averages merge into the average of all their readings")
  func merge() {
    var first = SuspendedMemoryAverage()
    first.hold(bytes: 100, for: 1)
    var second = SuspendedMemoryAverage()
    second.hold(bytes: 300, for: 3)
    second.hold(bytes: 700, for: 2)
    var all = SuspendedMemoryAverage()
    all.hold(bytes: 100, for: 1)
    all.hold(bytes: 300, for: 3)
    all.hold(bytes: 700, for: 2)
    first.merge(second)
    #expect(abs(first.averageBytes - all.averageBytes) < 1e-9)
    #expect(abs(first.standardDeviationBytes - all.standardDeviationBytes) < 1e-9)
    #expect(first.seconds == 6)
  }

  @Test("read at the suspension (after the stop, with the written bytes) and every 2 s; the resumption closes it")
  func readWhileSuspended() throws {
    var policy = Self.policy()
    let actions = try Self.suspended(&policy, at: t(1))
    let stop = try #require(actions.firstIndex { if case .suspend = $0 { true } else { false } })
    let read = try #require(actions.firstIndex { if case .sampleSuspendedMemory = $0 { true } else { false } })
    #expect(stop < read, "the reading is of the stopped app")
    #expect(actions.contains(.sampleDiskWrites([AppProcessRef(app: "a", pid: 10)])))
    Self.reading(&policy, 1000, at: t(1))
    DiskWriteMonitorTests.reading(&policy, 5000, at: t(1))
    #expect(Self.memoryReads(policy.observe(.tick(at: t(2)))) == nil, "the round is 2 s after the suspension")
    #expect(Self.memoryReads(policy.observe(.tick(at: t(3)))) == [AppProcessRef(app: "a", pid: 10)])
    Self.reading(&policy, 3000, at: t(3))
    // So far, the held reading counts up to now.
    let soFar = try #require(policy.launchMetrics(of: "a", at: t(4))?.suspendedMemory)
    #expect(soFar.samples == 2 && soFar.seconds == 3)
    _ = try policy.handle(.resume(app: "a", at: t(4)))
    Self.reading(&policy, 9_000_000, at: t(4), pid: 10)
    let metrics = try #require(policy.launchMetrics(of: "a", at: t(9)))
    // 1000 held 2 s, 3000 held 1 s: 5000/3; a reading after the resumption is too late to count.
    #expect(metrics.suspendedMemory.samples == 2)
    #expect(abs(metrics.suspendedMemory.averageBytes - 5000.0 / 3) < 1e-9)
    #expect(abs(metrics.suspendedMemory.standardDeviationBytes - (8_000_000.0 / 9).squareRoot()) < 1e-6)
    #expect(metrics.bytesWritten == 5000)
    #expect(metrics.suspendedMemory == soFar, "the resumption weighted the held reading as the so-far view did")
  }

  @Test("no rounds while no app is suspended; a running app is never read")
  func onlyWhileSuspended() throws {
    var policy = Self.policy()
    try DiskWriteMonitorTests.start(&policy, "a", pid: 10, limit: nil)
    #expect(policy.nextDeadline == nil, "a running app is not read")
    _ = try policy.handle(.suspend(app: "a", at: t(3)))
    policy.observe(.suspendCompleted(app: "a", at: t(3)))
    #expect(policy.nextDeadline == t(5))
    _ = try policy.handle(.resume(app: "a", at: t(4)))
    #expect(policy.nextDeadline == nil, "the last resumption ended the rounds")
    #expect(Self.memoryReads(policy.observe(.tick(at: t(5)))) == nil)
    for second in 6..<20 { #expect(Self.memoryReads(policy.observe(.tick(at: t(Int64(second))))) == nil) }
    Self.reading(&policy, 1000, at: t(20))
    #expect(policy.launchMetrics(of: "a", at: t(21))?.suspendedMemory.isEmpty == true)
  }

  @Test("bounded: a thousand readings cost what a hundred do, and the exit record carries the average")
  func bounded() throws {
    var policy = Self.policy()
    _ = try Self.suspended(&policy, at: t(0))
    func size(after count: Int) throws -> Int {
      for second in 0..<count { Self.reading(&policy, 4096, at: t(Int64(second))) }
      var metrics = try #require(policy.launchMetrics(of: "a", at: t(Int64(count))))
      metrics.suspendedMemory.samples = 0
      metrics.suspendedMemory.seconds = 0
      return try JSONEncoder().encode(metrics).count
    }
    #expect(try size(after: 100) == size(after: 1000))
    let actions = try policy.handle(.terminate(app: "a", at: t(2000)))
    let exit = policy.observe(
      .exited(app: "a", pid: 10, end: .signaled(signal: 15, dumpedCore: false), oomKilled: false, at: t(2001)))
    let record = try #require(LaunchMetricsTests.record(actions + exit))
    #expect(record.launchMetrics?.suspendedMemory.samples == 1100)
    #expect(record.launchMetrics?.suspendedMemory.averageBytes == 4096)
    #expect(record.launchMetrics?.suspendedMemory.standardDeviationBytes == 0)
  }
}
