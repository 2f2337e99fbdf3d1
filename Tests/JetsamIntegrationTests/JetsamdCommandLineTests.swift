import Foundation
import Glibc
import JetsamTestKit
import JetsamTestTraits
import Testing

/// jetsamd's own command line, run as a binary.
@Suite("jetsamd command line", .offThePool)
struct JetsamdCommandLineTests {
  @Test("--help, --version and --check-config")
  func informational() throws {
    let help = try runCommand(Binaries.current.jetsamd, ["--help"])
    #expect(help.status == 0)
    for option in [
      "--config", "--profile", "--socket", "--state-dir", "--foreground", "--exit-with-parent", "--check-config",
      "--version",
    ] {
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

  /// Configs that once crashed `--check-config` or a reload (overflowing conversions and arithmetic): each is a
  /// config error naming its key, never a crash.
  static let hostileConfigs: [(text: String, key: String)] = [
    ("{ killTimeout: 1e300 }", "killTimeout: 1e+300 is not a duration"),
    (#"{ terminateGrace: "99999999999h" }"#, "terminateGrace: \"99999999999h\" is not a duration"),
    (#"{ device: { ram: "9999999T" } }"#, "device.ram:"),
    (
      #"{ device: { ram: "2G", thresholds: { warning: { enter: "1G", clear: 9223372036854775807 } } } }"#,
      "device.thresholds.warning.clear: 9223372036854775807 is not a size"
    ),
    (#"{ device: { thresholds: { urgent: { enter: "1e400%", clear: "20%" } } } }"#, "device.thresholds.urgent.enter:"),
    (#"{ defaults: { cpuLimit: 1e308 } }"#, "defaults.cpuLimit: 1e+308 is not a CPU cap"),
    (#"{ defaults: { pidsLimit: 9223372036854775807 } }"#, "defaults.pidsLimit: must be from 1 to 4194304"),
    (#"{ daemonOOMScoreAdj: 5000 }"#, "daemonOOMScoreAdj: must be from -1000 to 1000"),
    (#"{ daemonNice: 3.5, timeScale: 0.5 }"#, "daemonNice: expected an integer, got 3.5"),
    (#"{ daemonRealtimePriority: 0 }"#, "daemonRealtimePriority: must be from 1 to 99, or null"),
    (#"{ apps: { a: { command: ["x"], pidsLimit: 2.5, cpuLimit: 50.5 } } }"#, "apps.a.pidsLimit: expected an integer"),
    (#"{ apps: { a: { command: ["x"], band: 99 } } }"#, "apps.a.band: 99 is not a band"),
    (#"{ apps: { a: { command: ["x"], env: { "A=B": "1" } } } }"#, #"apps.a.env."A=B": a variable name"#),
  ]

  @Test("hostile numbers in a config are errors naming the key, never a crash")
  func hostileConfigs() throws {
    let path = NSTemporaryDirectory() + "hostile-\(getpid()).json5"
    defer { unlink(path) }
    for (text, key) in Self.hostileConfigs {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let result = try runCommand(Binaries.current.jetsamd, ["--config", path, "--check-config"])
      #expect(result.status == 78, "\(text): exit \(result.status) \(result.stderr.prefix(300))")
      #expect(result.stderr.contains(key), "\(text): \(result.stderr.prefix(300))")
    }
  }
}
