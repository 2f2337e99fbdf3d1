import Foundation
import JetsamTestKit

/// Headless Chromium, the one way the tests look at a page as a browser renders it.
enum HeadlessChromium {
  static let path = "/usr/bin/chromium"

  /// Whether it is installed (`make test` installs it).
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

  /// A guard against a hang, not a judgement: a page renders in about a second on a bare host and takes tens of
  /// seconds under emulation beside busy tests, so the bound is stretched as every other wait is.
  static let timeout = Duration.seconds(90 * TestTiming.slowdown)

  /// The DOM of `url` once its scripts have run.
  static func dumpDOM(_ url: String) throws -> CommandResult {
    try runCommand(
      path, ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--dump-dom", url],
      timeout: timeout)
  }

  /// A PNG of `url` at `width`×`height`, written to `file`.
  static func screenshot(_ url: String, to file: String, width: Int, height: Int) throws -> CommandResult {
    try runCommand(
      path,
      ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=\(width),\(height)", "--screenshot=" + file, url],
      timeout: timeout)
  }
}
