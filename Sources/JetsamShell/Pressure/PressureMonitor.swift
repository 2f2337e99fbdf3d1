import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// Watches the device's memory counter and reports each fresh reading, driven by the kernel where it can be.
///
/// Sources, in the order they usually fire: v1 usage-threshold eventfds registered at every threshold (they
/// fire within a fraction of a millisecond of a crossing, either way), a PSI trigger on memory stalls, and a
/// fallback poll of the one counter — every ``nearInterval`` while available memory is near or below a
/// threshold, every ``farInterval`` otherwise. Nothing is read per process.
public final class PressureMonitor {
  /// Poll period while within ``nearMargin`` of the warning clear threshold or below it.
  public static let nearInterval: Duration = .milliseconds(5)
  /// Poll period while memory is plentiful.
  public static let farInterval: Duration = .milliseconds(250)
  /// Poll period in the last ``approachMargin`` above an enter threshold: the kernel's usage-threshold check
  /// runs only every 128 page charges per CPU, so a bursty allocator can cross a few milliseconds before it fires.
  public static let approachInterval: Duration = .milliseconds(1)
  /// How close above an enter threshold polling switches to ``approachInterval``.
  public static let approachMargin: Int64 = 8 << 20

  public let counter: MemoryCounter
  private let loop: EventLoop
  private var thresholds: PressureThresholds
  private let onSample: (Int64, Instant) -> Void
  private let onError: (any Error) -> Void
  private var sources: [EventSource] = []
  private var descriptors: [FileDescriptor] = []
  private var pollTimer: EventSource?
  private var stopped = false
  /// The last reading.
  public private(set) var lastAvailable: Int64 = 0
  /// Which kernel notifications are in use (for `status`).
  public private(set) var notificationKinds: [String] = []

  /// Starts watching.
  /// - Parameters:
  ///   - thresholdFDs: makes a v1 usage-threshold eventfd for a usage in bytes (nil when the layout has none).
  ///   - pressureFDs: PSI trigger fds to watch for POLLPRI.
  ///   - onSample: called with each reading (available bytes, when).
  public init(
    loop: EventLoop, counter: MemoryCounter, thresholds: PressureThresholds,
    thresholdFDs: ((Int64) throws(SystemError) -> FileDescriptor)?, pressureFDs: [FileDescriptor],
    onSample: @escaping (Int64, Instant) -> Void, onError: @escaping (any Error) -> Void
  ) throws(SystemError) {
    self.loop = loop
    self.counter = counter
    self.thresholds = thresholds
    self.onSample = onSample
    self.onError = onError
    pollTimer = try loop.timer(at: nil) { [unowned self] in self.sample() }
    for fd in pressureFDs {
      descriptors.append(fd)
      sources.append(
        try loop.watch(fd: fd.rawValue, events: EpollEvents.priority) { [unowned self] _ in self.sample() })
      notificationKinds.append("psi")
    }
    try registerThresholds(thresholdFDs)
    sample()
  }

  deinit { stop() }

  /// Stops every source and closes the fds it owns.
  public func stop() {
    stopped = true
    pollTimer?.cancel()
    for source in sources { source.cancel() }
    sources = []
    for descriptor in descriptors { descriptor.close() }
    descriptors = []
  }

  /// Reads the counter now and reports it (also called after every exit, so freed memory is measured at once).
  public func sample() {
    guard !stopped else { return }
    do {
      lastAvailable = try counter.available()
    } catch {
      onError(error)
      return
    }
    let now = MonotonicClock.now()
    onSample(lastAvailable, now)
    let interval =
      isApproaching(lastAvailable)
      ? Self.approachInterval : isNear(lastAvailable) ? Self.nearInterval : Self.farInterval
    pollTimer?.schedule(at: now.advanced(by: interval))
  }

  /// How far above the warning clear threshold polling already runs at ``nearInterval``.
  private var nearMargin: Int64 { Self.nearMargin(ram: counter.ramBytes) }

  private static func nearMargin(ram: Int64) -> Int64 { max(ram / 20, 64 << 20) }

  /// The amounts of available memory at which the device's usage notifications fire: every enter and clear
  /// threshold, plus the points where polling must speed up; only those a device of `ram` bytes can reach. The
  /// config bounds every threshold (at most 1 PiB), so the sums cannot overflow.
  package static func watchedAvailables(_ thresholds: PressureThresholds, ram: Int64) -> Set<Int64> {
    let levels = [thresholds.warning, thresholds.urgent, thresholds.critical]
    let availables =
      levels.flatMap { [$0.enter, $0.clear, $0.enter + approachMargin] }
      + [thresholds.warning.clear + nearMargin(ram: ram)]
    return Set(availables.filter { $0 > 0 && $0 < ram })
  }

  private func isNear(_ available: Int64) -> Bool {
    available < thresholds.warning.clear + nearMargin
  }

  private func isApproaching(_ available: Int64) -> Bool {
    [thresholds.warning, thresholds.urgent, thresholds.critical].contains {
      available > $0.enter && available <= $0.enter + Self.approachMargin
    }
  }

  private func registerThresholds(_ make: ((Int64) throws(SystemError) -> FileDescriptor)?) throws(SystemError) {
    guard let make, case .device(let ram, _) = counter else { return }
    for available in Self.watchedAvailables(thresholds, ram: ram) {
      let fd = try make(ram - available)
      descriptors.append(fd)
      sources.append(
        try loop.watch(fd: fd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
          var counter: UInt64 = 0
          _ = Glibc.read(fd.rawValue, &counter, 8)  // drain the eventfd, or it stays readable
          self.sample()
        })
    }
    notificationKinds.append("usage-thresholds")
  }
}
