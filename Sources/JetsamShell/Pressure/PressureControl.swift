import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues

/// The device's memory pressure as jetsamd measures and makes it: the monitor, whose samples go to the policy, the
/// thresholds it reads them against, the balloon of `pressure allocate`, and the requests waiting on pressure
/// (`pressure allocate|set --wait`).
final class PressureControl {
  private let loop: EventLoop
  private let log: Logger
  private let device: DeviceCgroup
  private let layout: CgroupLayout
  private let launcher: any ProcessLauncher
  /// Whether the host's own pressure (/proc/pressure/memory) counts too: the device is the whole host's RAM.
  private let watchesHost: Bool
  /// Where each sample goes (the policy loop).
  private let onSample: (_ available: Int64, _ at: Instant) -> Void
  /// The thresholds in bytes, resolved against the device's RAM.
  private(set) var thresholds: PressureThresholds
  private(set) var monitor: PressureMonitor
  /// The memory balloon of `pressure allocate`, and how many were made (each gets its own cgroup).
  private(set) var balloon: Balloon?
  private var balloonsMade = 0
  /// `pressure allocate|set --wait` requests, answered once the balloon is charged or jetsam has settled.
  let waiters: ConditionWaiters

  /// Starts the monitor on `counter` with `thresholds` (resolved against its RAM).
  init(
    loop: EventLoop, log: Logger, device: DeviceCgroup, layout: CgroupLayout, launcher: any ProcessLauncher,
    counter: MemoryCounter, thresholds: ThresholdConfig, watchesHost: Bool,
    onSample: @escaping (_ available: Int64, _ at: Instant) -> Void
  ) throws {
    self.loop = loop
    self.log = log
    self.device = device
    self.layout = layout
    self.launcher = launcher
    self.watchesHost = watchesHost
    self.onSample = onSample
    self.thresholds = thresholds.resolved(ram: counter.ramBytes)
    waiters = ConditionWaiters(loop: loop)
    monitor = try Self.monitor(
      loop: loop, log: log, device: device, layout: layout, counter: counter, thresholds: self.thresholds,
      watchesHost: watchesHost, onSample: onSample)
  }

  /// Takes a sample now (memory came back, or may have).
  func sample() { monitor.sample() }

  /// Reads against new thresholds (a reload): the monitor starts again with them.
  func reconfigure(_ config: ThresholdConfig) throws {
    thresholds = config.resolved(ram: monitor.counter.ramBytes)
    let counter = monitor.counter
    monitor.stop()
    monitor = try Self.monitor(
      loop: loop, log: log, device: device, layout: layout, counter: counter, thresholds: thresholds,
      watchesHost: watchesHost, onSample: onSample)
  }

  /// Stops measuring (jetsamd stops or restarts).
  func stop() { monitor.stop() }

  /// Charges `bytes` of real memory to the device (`pressure allocate`), replacing any balloon.
  func inflateBalloon(bytes: Int64, helper: String) throws {
    releaseBalloon()
    balloonsMade += 1
    let made: Balloon
    do {
      made = try Balloon(
        device: device, number: balloonsMade, bytes: bytes, helper: helper, loop: loop, launcher: launcher)
    } catch {
      // An installation fault, not the request's: say which program, and where jetsamd looked for it.
      throw ControlError(
        .internalError, "the memory balloon could not start (\(helper), installed beside jetsamd): \(error)")
    }
    made.chargeKnown = { [unowned self] in self.waiters.recheck() }
    // Never replaced without being released: its process would run on, unwatched and never reaped.
    if balloon != nil { releaseBalloon() }
    balloon = made
  }

  /// Gives the balloon's memory back (`pressure release`); its cgroup goes once its process has.
  func releaseBalloon() {
    balloon?.release(loop: loop, log: log) { [weak self] in self?.monitor.sample() }
    balloon = nil
    monitor.sample()
  }

  private static func monitor(
    loop: EventLoop, log: Logger, device: DeviceCgroup, layout: CgroupLayout, counter: MemoryCounter,
    thresholds: PressureThresholds, watchesHost: Bool, onSample: @escaping (Int64, Instant) -> Void
  ) throws -> PressureMonitor {
    try PressureMonitor(
      loop: loop, counter: counter, thresholds: thresholds,
      thresholdFDs: layout.supportsUsageThresholds
        ? { (usage: Int64) throws(SystemError) in try device.usageThresholdEventFD(bytes: usage) } : nil,
      pressureFDs: pressureTriggers(device: device, watchesHost: watchesHost, log: log), onSample: onSample,
      onError: { error in log.error("reading memory: \(error)") })
  }

  /// PSI as an extra signal: stalls wake the monitor for an immediate reading. A 2 s window is the shortest
  /// the kernel accepts without CAP_SYS_RESOURCE.
  private static func pressureTriggers(device: DeviceCgroup, watchesHost: Bool, log: Logger) -> [FileDescriptor] {
    var triggers: [FileDescriptor] = []
    var files = [device.unifiedDirectory + "/memory.pressure"]
    if watchesHost { files.append("/proc/pressure/memory") }
    for file in files {
      do {
        triggers.append(
          try CgroupNotifications.pressureTrigger(file: file, stallMicroseconds: 150_000, windowMicroseconds: 2_000_000)
        )
      } catch {
        log.warning("no PSI trigger (\(error)); relying on the other pressure sources")
      }
    }
    return triggers
  }
}
