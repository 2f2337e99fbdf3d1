import JetsamCore

/// What ``PressureControl`` and the daemon's views hold of the monitor of the device's memory: the counter it
/// reads, its last reading, a reading on demand, its end. The daemon's is ``PressureMonitor``; unit tests hand in
/// one that only counts what it was asked.
protocol PressureSampler: AnyObject {
  /// The counter it reads (the device's RAM with it).
  var counter: MemoryCounter { get }
  /// The available bytes it read last.
  var lastAvailable: Int64 { get }
  /// Reads the counter now and reports the reading.
  func sample()
  /// Stops reading for good.
  func stop()
}

extension PressureMonitor: PressureSampler {}
