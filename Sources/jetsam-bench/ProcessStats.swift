import Foundation
import Glibc
import JetsamPlatform
import JetsamTestKit

/// Per-process figures from /proc: resident memory, CPU time, children.
enum ProcessStats {
  /// VmRSS in bytes.
  static func residentBytes(_ pid: Int32) -> Int64? {
    (try? ProcessStatus.read(pid: pid))?.residentBytes
  }

  /// utime + stime of the whole process (all threads, from /proc/PID/stat), in seconds.
  static func cpuSeconds(_ pid: Int32) -> Double? { JetsamTestKit.cpuSeconds(of: pid) }

  /// Time on CPU of the whole process, in seconds, from its CPU-time clock (`clock_getcpuclockid`): nanosecond
  /// resolution where utime + stime count whole clock ticks, and process-wide, threads that ended included. (A sum
  /// over /proc/PID/task/*/schedstat loses the threads that end between two readings, and could print a negative
  /// share on a loaded machine.)
  static func scheduledSeconds(_ pid: Int32) -> Double? {
    var clock = clockid_t()
    var time = timespec()
    guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// The children of the process's main thread.
  static func children(_ pid: Int32) -> [Int32] {
    ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
      .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }
}
