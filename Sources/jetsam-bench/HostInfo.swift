import Foundation
import Glibc
import JetsamTestKit

/// What the report says about the machine it ran on.
enum HostInfo {
  static var kernel: String {
    var name = utsname()
    uname(&name)
    return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  static var memTotalBytes: Int64 {
    let text = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("MemTotal:") } ?? ""
    return (Int64(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
  }

  /// The 1-minute load average.
  static var load: String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(
      separator: " ")
  }

  /// `earlyoom -v`'s first line.
  static func earlyoomVersion(_ path: String?) -> String {
    guard let path, let result = try? runCommand(path, ["-v"], timeout: .seconds(5)) else { return "not installed" }
    return (result.stdout + result.stderr).split(separator: "\n").first.map(String.init) ?? "?"
  }
}
