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

  /// RssAnon in bytes: the process's own heap and stacks (0 when it cannot be read).
  static func anonymousBytes(_ pid: Int32) -> Int64 { statusKiB("RssAnon:", pid) * 1024 }

  /// RssFile in bytes: pages of the program and its libraries (0 when it cannot be read).
  static func fileBytes(_ pid: Int32) -> Int64 { statusKiB("RssFile:", pid) * 1024 }

  /// A `Name:  123 kB` line of /proc/PID/status, in KiB (0 when missing).
  private static func statusKiB(_ name: String, _ pid: Int32) -> Int64 {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
    else { return 0 }
    return line.split(separator: " ").dropFirst().lazy.compactMap { Int64($0) }.first ?? 0
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
