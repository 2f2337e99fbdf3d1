import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import Testing

@testable import JetsamShell

/// The device's pressure as jetsamd measures and makes it, driven through a fake of what it starts on the device
/// (``PressureBackend``): the monitor and its thresholds, the balloon of `pressure allocate`, and the requests
/// waiting on pressure.
@Suite("Pressure control")
struct PressureControlTests {
  /// A monitor that counts what it is asked; its readings are the test's to make.
  final class FakeMonitor: PressureSampler {
    let counter: MemoryCounter
    let thresholds: PressureThresholds
    let onSample: (Int64, Instant) -> Void
    var lastAvailable: Int64 = 0
    private(set) var samples = 0
    private(set) var stopped = false

    init(counter: MemoryCounter, thresholds: PressureThresholds, onSample: @escaping (Int64, Instant) -> Void) {
      self.counter = counter
      self.thresholds = thresholds
      self.onSample = onSample
    }

    func sample() { samples += 1 }
    func stop() { stopped = true }
  }

  /// A balloon whose charge the test sets, and whose release it finishes.
  final class FakeBalloon: MemoryBalloon {
    let number: Int
    let bytes: Int64
    let helper: String
    /// Rechecked once its charge is known.
    let waiters: ConditionWaiters
    private(set) var charge = Balloon.Charge.filling
    private(set) var releases = 0
    /// What the release calls once the balloon's cgroup is gone.
    private(set) var whenGone: (() -> Void)?

    init(number: Int, bytes: Int64, helper: String, waiters: ConditionWaiters) {
      self.number = number
      self.bytes = bytes
      self.helper = helper
      self.waiters = waiters
    }

    func release(done: @escaping () -> Void) {
      releases += 1
      whenGone = done
    }

    /// Its process has touched every page, or died first.
    func finish(_ result: Balloon.Charge) {
      charge = result
      waiters.recheck()
    }
  }

  /// Records every monitor and balloon made.
  final class FakeBackend: PressureBackend {
    private(set) var monitors: [FakeMonitor] = []
    private(set) var balloons: [FakeBalloon] = []
    /// What the next balloon's start throws (its helper is not installed), if anything.
    var balloonError: (any Error)?

    func monitor(
      counter: MemoryCounter, thresholds: PressureThresholds, onSample: @escaping (Int64, Instant) -> Void
    ) throws -> any PressureSampler {
      let monitor = FakeMonitor(counter: counter, thresholds: thresholds, onSample: onSample)
      monitors.append(monitor)
      return monitor
    }

    func balloon(number: Int, bytes: Int64, helper: String, waiters: ConditionWaiters) throws -> any MemoryBalloon {
      if let balloonError { throw balloonError }
      let balloon = FakeBalloon(number: number, bytes: bytes, helper: helper, waiters: waiters)
      balloons.append(balloon)
      return balloon
    }
  }

  static let ram: Int64 = 4 << 30
  static let helper = "/usr/libexec/jetsam/jetsam-testapp"

  let loop = FakeLoop()
  let backend = FakeBackend()
  let control: PressureControl
  /// Every sample that reached the policy's side.
  let samples = SampleLog()

  final class SampleLog {
    var readings: [(available: Int64, at: Instant)] = []
  }

  init() throws {
    let samples = self.samples
    control = try PressureControl(
      loop: loop, backend: backend, counter: .device(ram: Self.ram, usage: { 0 }), thresholds: ThresholdConfig(),
      onSample: { available, at in samples.readings.append((available, at)) })
  }

  /// The monitor running now.
  var monitor: FakeMonitor { backend.monitors.last! }

  @Test("the monitor starts on the counter, with the thresholds resolved against its RAM, its samples to the policy")
  func startsMonitor() throws {
    let monitor = try #require(backend.monitors.only)
    #expect(monitor.counter.ramBytes == Self.ram)
    // The config's defaults: warning at 25 % of RAM available (clear at 30 %), urgent 15/20, critical 5/10.
    let expected = PressureThresholds(
      warning: .init(enter: Self.ram * 25 / 100, clear: Self.ram * 30 / 100),
      urgent: .init(enter: Self.ram * 15 / 100, clear: Self.ram * 20 / 100),
      critical: .init(enter: Self.ram * 5 / 100, clear: Self.ram * 10 / 100))
    #expect(monitor.thresholds == expected)
    #expect(control.thresholds == expected)
    monitor.onSample(123, .seconds(7))
    #expect(samples.readings.map(\.available) == [123] && samples.readings.map(\.at) == [.seconds(7)])
  }

  @Test("a reconfigure stops the monitor and starts another on the same counter, with the new thresholds in bytes")
  func reconfigureRestartsMonitor() throws {
    let first = monitor
    var config = ThresholdConfig()
    config.warning = .init(enter: .bytes(900 << 20), clear: .percentOfRAM(50))
    try control.reconfigure(config)
    #expect(backend.monitors.count == 2)
    #expect(first.stopped)
    #expect(!monitor.stopped && monitor.counter.ramBytes == Self.ram)
    #expect(monitor.thresholds.warning == .init(enter: 900 << 20, clear: 2 << 30))
    #expect(control.thresholds.warning == .init(enter: 900 << 20, clear: 2 << 30))
    // Still read against the same RAM, and still to the policy.
    #expect(monitor.thresholds.urgent == first.thresholds.urgent)
    monitor.onSample(5, .seconds(1))
    #expect(samples.readings.map(\.available) == [5])
    // A sample asked for now goes to the new monitor, not the stopped one.
    control.sample()
    #expect(monitor.samples == 1 && first.samples == 0)
  }

  @Test("stop stops the monitor")
  func stopStopsMonitor() {
    control.stop()
    #expect(monitor.stopped)
  }

  @Test("a balloon is made with the size and helper asked, its own number, and is held")
  func inflateMakesBalloon() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    let balloon = try #require(backend.balloons.only)
    #expect(balloon.number == 1 && balloon.bytes == 64 << 20 && balloon.helper == Self.helper)
    #expect(control.balloon === balloon)
    #expect(balloon.releases == 0)
  }

  @Test("a new balloon releases the old one first; memory is sampled at the release and again once it is gone")
  func newBalloonReleasesOld() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    let samplesBefore = monitor.samples
    try control.inflateBalloon(bytes: 128 << 20, helper: Self.helper)
    let (old, new) = (backend.balloons[0], backend.balloons[1])
    #expect(old.releases == 1 && new.releases == 0)
    #expect(new.number == 2 && new.bytes == 128 << 20)
    #expect(control.balloon === new)
    #expect(monitor.samples == samplesBefore + 1)
    let gone = try #require(old.whenGone)
    gone()
    #expect(monitor.samples == samplesBefore + 2)
  }

  @Test("release gives the balloon back and samples at once, and again once its cgroup is gone")
  func releaseSamples() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    let balloon = try #require(backend.balloons.only)
    let samplesBefore = monitor.samples
    control.releaseBalloon()
    #expect(balloon.releases == 1 && control.balloon == nil)
    #expect(monitor.samples == samplesBefore + 1)
    let gone = try #require(balloon.whenGone)
    gone()
    #expect(monitor.samples == samplesBefore + 2)
    // Nothing held: a second release only samples.
    control.releaseBalloon()
    #expect(balloon.releases == 1 && monitor.samples == samplesBefore + 3)
  }

  @Test("a balloon that cannot start is an internal error naming its helper; the old one is gone all the same")
  func balloonThatCannotStart() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    backend.balloonError = SystemError(code: 2, "execve")
    let error = #expect(throws: ControlError.self) {
      try control.inflateBalloon(bytes: 64 << 20, helper: "/nowhere/jetsam-testapp")
    }
    #expect(error?.code == .internalError)
    #expect(error?.message.contains("/nowhere/jetsam-testapp") == true)
    #expect(backend.balloons[0].releases == 1 && control.balloon == nil)
    // The next gets a number of its own: a cgroup name is never reused while an old balloon's may still leave.
    backend.balloonError = nil
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    #expect(backend.balloons.last?.number == 3)
  }

  @Test("a balloon's charge, once known, rechecks the waiters: a `--wait` is answered then, not before")
  func chargeRechecksWaiters() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    let balloon = try #require(backend.balloons.only)
    var answers: [Result<Void, ControlError>] = []
    let known = control.waiters.add(
      timeout: .seconds(5), what: "the balloon to be charged",
      check: { [control] in control.balloon?.charge == .charged ? .success(()) : nil },
      then: { answers.append($0) })
    #expect(known == nil && answers.isEmpty)
    balloon.finish(.charged)
    #expect(answers.count == 1 && (try? answers.first?.get()) != nil)
    // Answered once: its deadline is off.
    loop.advance(by: .seconds(10))
    #expect(answers.count == 1)
  }

  @Test("a waiter whose balloon never fills times out at its deadline, saying what it waited for")
  func waiterTimesOut() throws {
    try control.inflateBalloon(bytes: 64 << 20, helper: Self.helper)
    var answers: [Result<Void, ControlError>] = []
    _ = control.waiters.add(
      timeout: .seconds(5), what: "the balloon to be charged",
      check: { [control] in control.balloon?.charge == .charged ? .success(()) : nil },
      then: { answers.append($0) })
    loop.advance(by: .milliseconds(4_999))
    #expect(answers.isEmpty)
    loop.advance(by: .milliseconds(1))
    guard case .failure(let error) = try #require(answers.only) else {
      Issue.record("a waiter past its deadline succeeded")
      return
    }
    #expect(error.code == .timedOut && error.message.contains("the balloon to be charged"))
  }
}
