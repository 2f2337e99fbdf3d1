import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// The device's memory pressure as jetsamd measures and makes it: the monitor, whose samples go to the policy, the
/// thresholds it reads them against, the balloon of `pressure allocate`, and the requests waiting on pressure
/// (`pressure allocate|set --wait`). What it starts on the device (the monitor, each balloon) comes from its
/// ``PressureBackend``.
final class PressureControl {
  private let backend: any PressureBackend
  /// Where each sample goes (the policy loop).
  private let onSample: (_ available: Int64, _ at: Instant) -> Void
  /// The thresholds in bytes, resolved against the device's RAM.
  private(set) var thresholds: PressureThresholds
  private(set) var monitor: any PressureSampler
  /// The memory balloon of `pressure allocate`, and how many were made (each gets its own cgroup).
  private(set) var balloon: (any MemoryBalloon)?
  private var balloonsMade = 0
  /// `pressure allocate|set --wait` requests, answered once the balloon is charged or jetsam has settled.
  let waiters: ConditionWaiters

  /// Starts the monitor on `counter` with `thresholds` (resolved against its RAM); the waiters' deadlines run on
  /// `loop`.
  init(
    loop: any LoopScheduling, backend: any PressureBackend, counter: MemoryCounter, thresholds: ThresholdConfig,
    onSample: @escaping (_ available: Int64, _ at: Instant) -> Void
  ) throws {
    self.backend = backend
    self.onSample = onSample
    self.thresholds = thresholds.resolved(ram: counter.ramBytes)
    waiters = ConditionWaiters(loop: loop)
    monitor = try backend.monitor(counter: counter, thresholds: self.thresholds, onSample: onSample)
  }

  /// Takes a sample now (memory came back, or may have).
  func sample() { monitor.sample() }

  /// Reads against new thresholds (a reload): the monitor starts again with them.
  func reconfigure(_ config: ThresholdConfig) throws {
    thresholds = config.resolved(ram: monitor.counter.ramBytes)
    let counter = monitor.counter
    monitor.stop()
    monitor = try backend.monitor(counter: counter, thresholds: thresholds, onSample: onSample)
  }

  /// Stops measuring (jetsamd stops or restarts).
  func stop() { monitor.stop() }

  /// Charges `bytes` of real memory to the device (`pressure allocate`), replacing any balloon.
  func inflateBalloon(bytes: Int64, helper: String) throws {
    releaseBalloon()
    balloonsMade += 1
    let made: any MemoryBalloon
    do {
      made = try backend.balloon(number: balloonsMade, bytes: bytes, helper: helper, waiters: waiters)
    } catch {
      // An installation fault, not the request's: say which program, and where jetsamd looked for it.
      throw ControlError(
        .internalError, "the memory balloon could not start (\(helper), installed beside jetsamd): \(error)")
    }
    // Never replaced without being released: its process would run on, unwatched and never reaped.
    if balloon != nil { releaseBalloon() }
    balloon = made
  }

  /// Gives the balloon's memory back (`pressure release`); its cgroup goes once its process has.
  func releaseBalloon() {
    balloon?.release { [weak self] in self?.monitor.sample() }
    balloon = nil
    monitor.sample()
  }
}
