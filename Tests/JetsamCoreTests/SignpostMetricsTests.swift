import JetsamCore
import JetsamValues
import Testing

/// Signpost metrics measured by the core: each name's count and interval durations from the `signpost` lines, each
/// interval's cost from the counters the shell reads at its begin and end; nested and unended begins; bounded names.
@Suite("Signpost metrics")
struct SignpostMetricsTests {
  /// A signpost's phase (the wire's, named here without importing the wire module).
  enum Phase { case begin, end, event }

  /// App `a` (pid 10) passes signpost `name` at `at`; returns the reading the policy asked for, if any.
  @discardableResult
  static func signpost(_ policy: inout JetsamPolicy, _ name: String, _ phase: Phase, at: Instant) -> Int? {
    let message: AppMessage =
      switch phase {
      case .begin: .signpost(name: name, phase: .begin, requestID: nil)
      case .end: .signpost(name: name, phase: .end, requestID: nil)
      case .event: .signpost(name: name, phase: .event, requestID: nil)
      }
    let actions = policy.observe(.appMessage(app: "a", pid: 10, message: message, at: at))
    return actions.compactMap { if case .readSignpostCounters("a", 10, let reading) = $0 { reading } else { nil } }
      .first
  }

  static func read(_ policy: inout JetsamPolicy, _ reading: Int?, _ counters: SignpostCounters?, at: Instant) {
    guard let reading else { return }
    policy.observe(.signpostCountersRead(app: "a", pid: 10, reading: reading, counters: counters, at: at))
  }

  static func counters(cpu: Double, memory: Int64, written: Int64) -> SignpostCounters {
    SignpostCounters(cpuSeconds: cpu, memoryBytes: memory, bytesWritten: written)
  }

  @Test("an interval: its duration from begin to end, its cost from the counters read at both")
  func interval() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    let begin = try #require(Self.signpost(&policy, "save", .begin, at: t(1)))
    Self.read(&policy, begin, Self.counters(cpu: 1.0, memory: 1_000_000, written: 4096), at: t(1))
    let end = try #require(Self.signpost(&policy, "save", .end, at: t(1, ms: 300)))
    #expect(end != begin)
    Self.read(&policy, end, Self.counters(cpu: 1.25, memory: 3_000_000, written: 12288), at: t(1, ms: 300))
    let figures = try #require(policy.launchMetrics(of: "a", at: t(2))?.signposts["save"])
    #expect(figures.totalCount == 1)
    #expect(figures.durations.buckets == [.init(startMilliseconds: 250, endMilliseconds: 500, count: 1)])
    #expect(figures.measuredIntervals == 1)
    #expect(figures.cpuSeconds == 0.25)
    #expect(figures.averageMemoryBytes == 2_000_000)
    #expect(figures.bytesWritten == 8192)
    // The record carries them.
    let record = try #require(LaunchMetricsTests.record(policy.exits("a", .exited(code: 0), at: t(3))))
    #expect(record.launchMetrics?.signposts["save"] == figures)
  }

  @Test("the end's reading may come back first; an unreadable end counts the duration, not the cost")
  func readingsInAnyOrder() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    let begin = Self.signpost(&policy, "save", .begin, at: t(1))
    let end = Self.signpost(&policy, "save", .end, at: t(1, ms: 30))
    Self.read(&policy, end, Self.counters(cpu: 2, memory: 10, written: 0), at: t(1, ms: 40))
    Self.read(&policy, begin, Self.counters(cpu: 1, memory: 30, written: 0), at: t(1, ms: 50))
    let second = Self.signpost(&policy, "save", .begin, at: t(2))
    Self.read(&policy, second, Self.counters(cpu: 5, memory: 10, written: 0), at: t(2))
    Self.read(&policy, Self.signpost(&policy, "save", .end, at: t(2, ms: 60)), nil, at: t(2, ms: 60))
    let figures = try #require(policy.launchMetrics(of: "a", at: t(3))?.signposts["save"])
    #expect(figures.totalCount == 2)
    #expect(figures.durations.total == 2)
    #expect(figures.measuredIntervals == 1, "the second interval's end could not be read")
    #expect(figures.cpuSeconds == 1)
    #expect(figures.averageMemoryBytes == 20)
  }

  @Test("nested begins of one name: an end closes the latest; an end with no begin counts nothing")
  func nested() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    Self.signpost(&policy, "load", .begin, at: t(1))
    Self.signpost(&policy, "load", .begin, at: t(2))
    Self.signpost(&policy, "load", .end, at: t(2, ms: 20))  // the inner one: 20 ms
    Self.signpost(&policy, "load", .end, at: t(4))  // the outer one: 3 s
    #expect(Self.signpost(&policy, "load", .end, at: t(5)) == nil, "no begin left to close: no reading asked")
    Self.signpost(&policy, "tick", .event, at: t(5))
    let metrics = try #require(policy.launchMetrics(of: "a", at: t(6)))
    let load = try #require(metrics.signposts["load"])
    #expect(load.totalCount == 2)
    #expect(
      load.durations.buckets == [
        .init(startMilliseconds: 0, endMilliseconds: 50, count: 1),
        .init(startMilliseconds: 2000, endMilliseconds: 5000, count: 1),
      ])
    #expect(metrics.signposts["tick"]?.totalCount == 1)
    #expect(metrics.signposts["tick"]?.durations.isEmpty == true, "an event has no duration")
  }

  @Test("unended begins are bounded: the oldest is dropped, and the process's end drops the rest")
  func unended() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    // One more begin than is kept: the first is dropped, so the 17 ends close 16 intervals.
    for i in 0...16 { Self.signpost(&policy, "spin", .begin, at: t(1, ms: Int64(i))) }
    for i in 0...16 { Self.signpost(&policy, "spin", .end, at: t(2, ms: Int64(i))) }
    Self.signpost(&policy, "open", .begin, at: t(3))
    let record = try #require(LaunchMetricsTests.record(policy.exits("a", .exited(code: 0), at: t(4))))
    let metrics = try #require(record.launchMetrics)
    #expect(metrics.signposts["spin"]?.totalCount == 16)
    #expect(metrics.signposts["open"] == nil, "an interval never ended counts nothing")
  }

  @Test("at most 32 names per launch: a further name is not counted, known names still are")
  func boundedNames() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    for i in 0..<(LaunchMetrics.maxSignpostNames + 5) { Self.signpost(&policy, "n\(i)", .event, at: t(1)) }
    #expect(Self.signpost(&policy, "late", .begin, at: t(1)) == nil, "a begin of a name beyond the cap reads nothing")
    Self.signpost(&policy, "n0", .event, at: t(2))
    let metrics = try #require(policy.launchMetrics(of: "a", at: t(3)))
    #expect(metrics.signposts.count == LaunchMetrics.maxSignpostNames)
    #expect(metrics.signposts["n0"]?.totalCount == 2)
    #expect(metrics.signposts["late"] == nil)
  }

  @Test("readings in flight are bounded: past 16 unanswered, intervals count their durations but no cost")
  func boundedReadings() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    var readings: [Int] = []
    for i in 0..<9 {
      for phase in [Phase.begin, .end] {
        if let reading = Self.signpost(&policy, "x", phase, at: t(1, ms: Int64(i) * 10)) { readings.append(reading) }
      }
    }
    #expect(readings.count == 16, "8 intervals read at both ends; the 9th is not read")
    for reading in readings { Self.read(&policy, reading, Self.counters(cpu: 1, memory: 100, written: 0), at: t(2)) }
    let figures = try #require(policy.launchMetrics(of: "a", at: t(3))?.signposts["x"])
    #expect(figures.totalCount == 9)
    #expect(figures.durations.total == 9)
    #expect(figures.measuredIntervals == 8)
    // Once answered, readings are asked for again.
    #expect(Self.signpost(&policy, "x", .begin, at: t(4)) != nil)
  }

  @Test("a reading for another process is ignored")
  func otherProcess() throws {
    var policy = try LaunchMetricsTests.launched(activeAt: t(0, ms: 200))
    let begin = try #require(Self.signpost(&policy, "save", .begin, at: t(1)))
    let end = try #require(Self.signpost(&policy, "save", .end, at: t(1, ms: 10)))
    for reading in [begin, end] {
      policy.observe(
        .signpostCountersRead(
          app: "a", pid: 99, reading: reading, counters: Self.counters(cpu: 1, memory: 1, written: 1), at: t(1)))
    }
    #expect(policy.launchMetrics(of: "a", at: t(2))?.signposts["save"]?.measuredIntervals == 0)
  }
}
