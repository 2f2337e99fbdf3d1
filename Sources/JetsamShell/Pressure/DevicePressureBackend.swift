import JetsamCore
import JetsamPlatform
import JetsamValues

/// The daemon's ``PressureBackend``: a ``PressureMonitor`` woken by the device's v1 usage thresholds (where the
/// layout has them) and PSI triggers, and each ``Balloon`` a process started through the launcher.
struct DevicePressureBackend: PressureBackend {
  let loop: EventLoop
  let log: Logger
  let device: DeviceCgroup
  let layout: CgroupLayout
  let launcher: any ProcessLauncher
  /// Whether the host's own pressure (/proc/pressure/memory) counts too: the device is the whole host's RAM.
  let watchesHost: Bool

  func monitor(
    counter: MemoryCounter, thresholds: PressureThresholds,
    onSample: @escaping (_ available: Int64, _ at: Instant) -> Void
  ) throws -> any PressureSampler {
    try PressureMonitor(
      loop: loop, counter: counter, thresholds: thresholds,
      thresholdFDs: layout.supportsUsageThresholds
        ? { [device] (usage: Int64) throws(SystemError) in try device.usageThresholdEventFD(bytes: usage) } : nil,
      pressureFDs: pressureTriggers(), onSample: onSample,
      onError: { [log] error in log.error("reading memory: \(error)") })
  }

  func balloon(number: Int, bytes: Int64, helper: String, waiters: ConditionWaiters) throws -> any MemoryBalloon {
    try Balloon(
      device: device, number: number, bytes: bytes, helper: helper, loop: loop, log: log, launcher: launcher,
      waiters: waiters)
  }

  /// PSI as an extra signal: stalls wake the monitor for an immediate reading. A 2 s window is the shortest
  /// the kernel accepts without CAP_SYS_RESOURCE.
  private func pressureTriggers() -> [FileDescriptor] {
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
