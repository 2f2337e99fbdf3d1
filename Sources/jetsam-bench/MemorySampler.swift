import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// Reads one or more ``MemoryGauge``s on a thread of its own every ``interval`` microseconds and keeps every
/// reading with its CLOCK_MONOTONIC time, for working out afterwards when a counter crossed a level.
///
/// At the default 250 µs the sampler costs roughly a tenth of a core; it runs the same way for every tool
/// measured, so its cost falls equally on each.
final class MemorySampler: @unchecked Sendable {
  /// One reading of every gauge.
  struct Sample: Sendable {
    let time: UInt64
    let values: [Int64]
  }

  let gauges: [MemoryGauge]
  let interval: UInt32
  private let lock = NSLock()
  private var samples: [Sample] = []
  private var stopping = false
  private var stopped = false

  init(gauges: [MemoryGauge], intervalMicroseconds: UInt32 = 250) {
    self.gauges = gauges
    interval = intervalMicroseconds
    samples.reserveCapacity(40_000)
  }

  func start() {
    Thread.detachNewThread { [self] in
      ObserverPriority.promoteCurrentThread()
      while true {
        let values = gauges.map { $0.read() ?? -1 }
        let now = MonotonicTime.now()
        lock.lock()
        samples.append(Sample(time: now, values: values))
        let done = stopping
        lock.unlock()
        if done { break }
        usleep(interval)
      }
      lock.lock()
      stopped = true
      lock.unlock()
    }
  }

  /// The latest reading, if any.
  var latest: Sample? {
    lock.lock()
    defer { lock.unlock() }
    return samples.last
  }

  /// Stops the thread and returns every reading.
  func stop() -> [Sample] {
    lock.lock()
    stopping = true
    lock.unlock()
    while true {
      lock.lock()
      let done = stopped
      lock.unlock()
      if done { break }
      usleep(100)
    }
    lock.lock()
    defer { lock.unlock() }
    return samples
  }

  /// The time of the first sample at or after `after` whose gauge `index` satisfies `condition`.
  static func firstTime(in samples: [Sample], gauge index: Int, after: UInt64 = 0, where condition: (Int64) -> Bool)
    -> UInt64?
  {
    samples.first { $0.time >= after && $0.values[index] >= 0 && condition($0.values[index]) }?.time
  }
}
