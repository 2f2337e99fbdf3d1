import JetsamValues
import Testing

@testable import JetsamCore

/// The signpost meter driven alone: intervals, their readings, and what they come to.
@Suite("Signpost meter, alone")
struct SignpostMeterMachineTests {
  static let zero = SignpostCounters(cpuSeconds: 0, memoryBytes: 0, bytesWritten: 0)
  static let later = SignpostCounters(cpuSeconds: 1, memoryBytes: 10, bytesWritten: 100)

  @Test("an interval's duration comes at its end, its cost once both readings are in")
  func durationThenCost() {
    var meter = SignpostMeter()
    let begin = meter.begin("a", pid: 1, "load", at: t(1))
    #expect(begin == 1)
    let ended = meter.end("a", pid: 1, "load", counted: true, at: t(3))
    #expect(ended == SignpostMeter.Ended(name: "load", seconds: 2, reading: 2))
    let costed1 = meter.read("a", pid: 1, reading: 2, counters: Self.later)
    #expect(costed1 == nil, "the begin is not in yet")
    let costed = meter.read("a", pid: 1, reading: 1, counters: Self.zero)
    #expect(costed == SignpostMeter.Costed(name: "load", begin: Self.zero, end: Self.later))
  }

  @Test("an end with no open begin, of another process, or not counted comes to nothing")
  func nothing() {
    var meter = SignpostMeter()
    let ended1 = meter.end("a", pid: 1, "load", counted: true, at: t(1))
    #expect(ended1 == nil)
    _ = meter.begin("a", pid: 1, "load", at: t(1))
    let ended2 = meter.end("a", pid: 2, "load", counted: true, at: t(2))
    #expect(ended2 == nil)
    let ended3 = meter.end("a", pid: 1, "load", counted: false, at: t(2))
    #expect(ended3 == nil)
    let ended4 = meter.end("a", pid: 1, "load", counted: true, at: t(3))
    #expect(ended4 == nil, "the uncounted end closed it")
  }

  @Test("a new process starts with no intervals; the end forgets them")
  func perProcess() {
    var meter = SignpostMeter()
    _ = meter.begin("a", pid: 1, "load", at: t(1))
    _ = meter.begin("a", pid: 2, "other", at: t(2))
    let ended5 = meter.end("a", pid: 2, "load", counted: true, at: t(3))
    #expect(ended5 == nil, "pid 1's interval went with it")
    meter.forget("a")
    let ended6 = meter.end("a", pid: 2, "other", counted: true, at: t(3))
    #expect(ended6 == nil)
  }
}
