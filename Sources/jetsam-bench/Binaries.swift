import Foundation

/// The programs the bench drives: the release jetsamd, jetsamctl and jetsam-testapp found beside the bench's own
/// executable (`.build/release`), and the Debian earlyoom.
struct Binaries {
  let directory: String
  var jetsamd: String { directory + "/jetsamd" }
  var jetsamctl: String { directory + "/jetsamctl" }
  var testapp: String { directory + "/jetsam-testapp" }
  /// earlyoom from PATH (`scripts/install-deps.sh bench` installs it), nil when missing.
  let earlyoom: String?

  /// Locates the binaries beside `/proc/self/exe` (or in `override`).
  static func locate(override: String?) throws -> Binaries {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let directory = override ?? (own as NSString).deletingLastPathComponent
    let found = Binaries(directory: directory, earlyoom: Binaries.which("earlyoom"))
    for path in [found.jetsamd, found.jetsamctl, found.testapp]
    where !FileManager.default.isExecutableFile(atPath: path) {
      throw BenchError("\(path) is missing: build the release products first (make bench, or swift build -c release)")
    }
    return found
  }

  private static func which(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
    for directory in (path + ":/usr/bin:/usr/sbin").split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}
