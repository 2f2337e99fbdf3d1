import JetsamValues
import Testing

@testable import JetsamCore

/// The suspended-memory monitor driven alone: its rounds and the weights of its held readings.
@Suite("Suspended-memory monitor, alone")
struct SuspendedMemoryMonitorMachineTests {
  @Test("a suspension starts the rounds; each reading holds until the next or the return, which weigh it")
  func weights() {
    var monitor = SuspendedMemoryMonitor()
    let interval = Duration.seconds(10)
    let weight1 = monitor.moved("a", pid: 1, from: .background, to: .suspended, interval: interval, at: t(0))
    #expect(weight1 == nil)
    #expect(monitor.nextRoundAt == t(10))
    let taken1 = monitor.sampled(SuspendedMemorySample(app: "a", pid: 1, bytes: 100), at: t(0))
    #expect(taken1 == .init(closed: nil))
    #expect(monitor.heldReading(of: "a") == HeldMemoryReading(at: t(0), bytes: 100))
    let due1 = monitor.tick(at: t(10), interval: interval)
    #expect(due1 == [AppProcessRef(app: "a", pid: 1)])
    #expect(monitor.nextRoundAt == t(20))
    let second = monitor.sampled(SuspendedMemorySample(app: "a", pid: 1, bytes: 200), at: t(10))
    #expect(second == .init(closed: .init(bytes: 100, seconds: 10)))
    let left = monitor.moved("a", pid: 1, from: .suspended, to: .background, interval: interval, at: t(15))
    #expect(left == .init(bytes: 200, seconds: 5))
    #expect(monitor.nextRoundAt == nil, "the last suspended app left: no round")
    let taken2 = monitor.sampled(SuspendedMemorySample(app: "a", pid: 1, bytes: 300), at: t(16))
    #expect(taken2 == nil, "too late")
  }

  @Test("a reading of another process does not count; no interval means no rounds")
  func otherProcessAndNoInterval() {
    var monitor = SuspendedMemoryMonitor()
    _ = monitor.moved("a", pid: 1, from: .background, to: .suspended, interval: nil, at: t(0))
    #expect(monitor.nextRoundAt == nil)
    let taken3 = monitor.sampled(SuspendedMemorySample(app: "a", pid: 2, bytes: 100), at: t(1))
    #expect(taken3 == nil)
    let taken4 = monitor.sampled(SuspendedMemorySample(app: "a", pid: 1, bytes: 100), at: t(1))
    #expect(taken4 != nil)
  }
}
