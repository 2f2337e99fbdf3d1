import Foundation
import Glibc

/// Per-process figures from /proc: resident memory, CPU time, state, children.
enum ProcessStats {
  /// VmRSS in bytes.
  static func residentBytes(_ pid: Int32) -> Int64? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return nil }
    return Int64(line.split(separator: " ").dropFirst().first { Int64($0) != nil } ?? "").map { $0 * 1024 }
  }

  /// utime + stime of the whole process (all threads, from /proc/PID/stat), in seconds.
  static func cpuSeconds(_ pid: Int32) -> Double? {
    guard let fields = statFields(pid), fields.count > 12, let utime = Double(fields[11]),
      let stime = Double(fields[12])
    else {
      return nil
    }
    return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

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

  /// The state letter (`R`, `S`, `T`, `Z`…), nil when the process is gone.
  static func state(_ pid: Int32) -> Character? {
    statFields(pid)?.first?.first
  }

  /// The children of the process's main thread.
  static func children(_ pid: Int32) -> [Int32] {
    ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
      .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  /// The fields of /proc/PID/stat after the command name (field 3, the state, comes first).
  private static func statFields(_ pid: Int32) -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(after: close)...].split(separator: " ")
  }
}
