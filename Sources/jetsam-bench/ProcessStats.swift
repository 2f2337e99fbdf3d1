import Foundation
import Glibc
import JetsamTestKit

/// Per-process figures from /proc: resident memory, CPU time, children.
enum ProcessStats {
  /// VmRSS in bytes.
  static func residentBytes(_ pid: Int32) -> Int64? {
    (try? ProcessStatus.read(pid: pid))?.residentBytes
  }

  /// utime + stime of the whole process (all threads, from /proc/PID/stat), in seconds.
  static func cpuSeconds(_ pid: Int32) -> Double? { JetsamTestKit.cpuSeconds(of: pid) }

  /// Time on CPU of every thread (sum of the first field of /proc/PID/task/*/schedstat), in seconds: nanosecond
  /// resolution, where utime + stime count whole clock ticks.
  static func scheduledSeconds(_ pid: Int32) -> Double? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    var total: Double = 0
    for task in tasks {
      guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
        let first = text.split(separator: " ").first, let ns = Double(first)
      else { continue }
      total += ns
    }
    return total / 1e9
  }

  /// The children of the process's main thread.
  static func children(_ pid: Int32) -> [Int32] {
    ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
      .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }
}
