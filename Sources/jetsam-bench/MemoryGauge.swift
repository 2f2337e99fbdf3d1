import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// One memory figure read at high rate through a descriptor kept open (one pread per reading: ~10–30 µs for a
/// cgroup counter, a little more for /proc/meminfo).
final class MemoryGauge: @unchecked Sendable {
  enum Kind: Sendable {
    /// A cgroup's charged bytes: v1 `memory.usage_in_bytes` or v2 `memory.current` (the counter jetsamd's
    /// device pressure is computed from).
    case cgroupUsage
    /// The host's `MemAvailable` from /proc/meminfo, in bytes (the figure earlyoom compares with its threshold).
    case memAvailable
  }

  let kind: Kind
  let path: String
  private let fd: Int32
  private var buffer = [UInt8](repeating: 0, count: 8192)

  private init(kind: Kind, path: String) throws {
    self.kind = kind
    self.path = path
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw BenchError("open \(path): \(String(cString: strerror(errno)))") }
  }

  deinit { close(fd) }

  static func cgroupUsage(_ path: String) throws -> MemoryGauge { try MemoryGauge(kind: .cgroupUsage, path: path) }
  static func memAvailable() throws -> MemoryGauge { try MemoryGauge(kind: .memAvailable, path: "/proc/meminfo") }

  /// The current value in bytes, nil if the read failed. Not thread-safe: one reader per gauge.
  func read() -> Int64? {
    let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { return nil }
    return buffer.withUnsafeBufferPointer { bytes -> Int64? in
      switch kind {
      case .cgroupUsage:
        return MemoryGauge.number(in: bytes, from: 0, to: n)
      case .memAvailable:
        // "MemAvailable:   23130604 kB"
        let key = Array("MemAvailable:".utf8)
        var i = 0
        while i + key.count <= n {
          if bytes[i] == key[0] && Array(bytes[i..<(i + key.count)]) == key {
            return MemoryGauge.number(in: bytes, from: i + key.count, to: n).map { $0 * 1024 }
          }
          while i < n && bytes[i] != UInt8(ascii: "\n") { i += 1 }
          i += 1
        }
        return nil
      }
    }
  }

  /// The value once it has stopped moving (no change above 64 KiB for 50 ms), or whatever it is after 2 s.
  func settled() -> Int64 {
    var last = read() ?? 0
    var stableSince = MonotonicTime.now()
    let start = stableSince
    while MonotonicTime.seconds(since: start) < 2 {
      MonotonicTime.sleep(milliseconds: 5)
      let value = read() ?? 0
      if abs(value - last) > 64 << 10 {
        last = value
        stableSince = MonotonicTime.now()
      } else if MonotonicTime.seconds(since: stableSince) >= 0.05 {
        return value
      }
    }
    return read() ?? last
  }

  /// The first decimal number in bytes[start..<end], skipping leading blanks.
  private static func number(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int64? {
    var i = start
    while i < end && (bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t")) { i += 1 }
    var value: Int64 = 0
    var digits = 0
    while i < end, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
      value = value * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
      digits += 1
      i += 1
    }
    return digits > 0 ? value : nil
  }
}
