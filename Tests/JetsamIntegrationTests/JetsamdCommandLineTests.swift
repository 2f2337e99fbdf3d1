import Foundation
import Glibc
import Testing

/// jetsamd's own command line, run as a binary.
@Suite("jetsamd command line")
struct JetsamdCommandLineTests {
  @Test("--help, --version and --check-config")
  func informational() throws {
    let help = try runCommand(Binaries.current.jetsamd, ["--help"])
    #expect(help.status == 0)
    for option in ["--config", "--profile", "--socket", "--state-dir", "--foreground", "--check-config", "--version"] {
      #expect(help.stdout.contains(option))
    }
    let version = try runCommand(Binaries.current.jetsamd, ["--version"])
    #expect(version.status == 0)
    #expect(version.stdout.hasPrefix("jetsamd "))
    let config = Binaries.packageRoot + "/config/jetsamd.json5"
    let check = try runCommand(
      Binaries.current.jetsamd, ["--config", config, "--profile", "phone-4g", "--check-config"])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(check.stdout.contains("OK"))
  }

  @Test("a bad config fails start-up with the file, the key path and the reason (exit 78)")
  func badConfig() throws {
    let path = NSTemporaryDirectory() + "bad-\(getpid()).json5"
    defer { unlink(path) }
    try #"{ apps: { mail: { command: ["x"], memoryLimit: "12Q" } } }"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    let name = (path as NSString).lastPathComponent
    for arguments in [["--check-config"], ["--foreground"]] {
      let result = try runCommand(Binaries.current.jetsamd, ["--config", path] + arguments)
      #expect(result.status == 78)
      #expect(result.stderr.contains(#"\#(name): apps.mail.memoryLimit: "12Q" is not a size"#), "\(result.stderr)")
    }
    let unknown = try runCommand(Binaries.current.jetsamd, ["--frobnicate"])
    #expect(unknown.status == 64)
    let missing = try runCommand(Binaries.current.jetsamd, ["--config", "/nonexistent.json5", "--check-config"])
    #expect(missing.status == 78)
    #expect(missing.stderr.contains("cannot read /nonexistent.json5"))
  }
}
