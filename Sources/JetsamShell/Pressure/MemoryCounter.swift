import Glibc
import JetsamPlatform

/// The single counter pressure is computed from: memory available to the emulated device.
public enum MemoryCounter {
  /// An emulated device of `ram` bytes: available = RAM − memory charged to the device cgroup.
  case device(ram: Int64, usage: @Sendable () throws -> Int64)
  /// The whole machine: `MemAvailable` from /proc/meminfo (read through a kept fd).
  case host(meminfo: FileDescriptor, total: Int64)

  /// Opens the host counter.
  public static func host() throws(SystemError) -> MemoryCounter {
    let fd = try FileDescriptor.open("/proc/meminfo", O_RDONLY)
    let total = try MemoryCounter.field("MemTotal:", in: fd.readText(capacity: 8192)) ?? 0
    return .host(meminfo: fd, total: total)
  }

  /// The device's RAM size in bytes.
  public var ramBytes: Int64 {
    switch self {
    case .device(let ram, _): ram
    case .host(_, let total): total
    }
  }

  /// Bytes available now.
  public func available() throws -> Int64 {
    switch self {
    case .device(let ram, let usage):
      return ram - (try usage())
    case .host(let fd, _):
      let text = try fd.readText(capacity: 8192)
      guard let value = MemoryCounter.field("MemAvailable:", in: text) else {
        throw SystemError(code: EINVAL, "no MemAvailable in /proc/meminfo")
      }
      return value
    }
  }

  /// A `Name:   123 kB` field of /proc/meminfo, in bytes.
  static func field(_ name: String, in text: String) -> Int64? {
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
    let rest = line.dropFirst(name.count).drop { $0 == " " }
    guard let kb = Int64(rest.prefix { $0.isNumber }) else { return nil }
    return kb * 1024
  }
}
