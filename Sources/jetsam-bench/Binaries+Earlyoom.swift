import Foundation
import JetsamTestKit

extension Binaries {
  /// earlyoom from PATH (`scripts/install-deps.sh bench` installs it), nil when missing.
  var earlyoom: String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
    for directory in (path + ":/usr/bin:/usr/sbin").split(separator: ":") {
      let candidate = "\(directory)/earlyoom"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}
