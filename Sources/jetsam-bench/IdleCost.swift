import Foundation
import JetsamDaemonProcess
import JetsamTestKit

/// A process's resident memory and CPU use over a quiet window.
struct IdleCost: Sendable {
  /// VmRSS at the end of the window (bytes) and the largest value seen during it.
  var residentBytes: Int64
  var peakResidentBytes: Int64
  /// VmRSS at the end split into RssAnon (the process's own heap and stacks) and RssFile (pages of the program and
  /// its libraries, the Swift runtime and Foundation above all, linked in or shared).
  var anonymousBytes: Int64
  var fileBytes: Int64
  /// CPU use in percent of one core: from utime + stime (clock ticks) and from the CPU-time clock (nanoseconds).
  var cpuPercentTicks: Double
  var cpuPercentScheduled: Double
  var seconds: Double

  /// Samples every process in `pids` over the same `seconds` (RSS once a second, CPU from start to end).
  static func measure(pids: [Int32], seconds: Double) -> [IdleCost] {
    let ticksBefore = pids.map { ProcessStats.cpuSeconds($0) ?? 0 }
    let scheduledBefore = pids.map { ProcessStats.scheduledSeconds($0) ?? 0 }
    var peaks = pids.map { ProcessStats.residentBytes($0) ?? 0 }
    let start = MonotonicTime.now()
    while MonotonicTime.seconds(since: start) < seconds {
      MonotonicTime.sleep(milliseconds: min(1000, max(1, (seconds - MonotonicTime.seconds(since: start)) * 1000)))
      for (index, pid) in pids.enumerated() { peaks[index] = max(peaks[index], ProcessStats.residentBytes(pid) ?? 0) }
    }
    let elapsed = MonotonicTime.seconds(since: start)
    return pids.enumerated().map { index, pid in
      let ticks = (ProcessStats.cpuSeconds(pid) ?? 0) - ticksBefore[index]
      let scheduled = (ProcessStats.scheduledSeconds(pid) ?? 0) - scheduledBefore[index]
      return IdleCost(
        residentBytes: ProcessStats.residentBytes(pid) ?? 0, peakResidentBytes: peaks[index],
        anonymousBytes: ProcessStats.anonymousBytes(pid), fileBytes: ProcessStats.fileBytes(pid),
        cpuPercentTicks: ticks / elapsed * 100, cpuPercentScheduled: scheduled / elapsed * 100, seconds: elapsed)
    }
  }
}
