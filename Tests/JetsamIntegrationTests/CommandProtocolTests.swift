import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// A real key-value server that knows nothing of jetsam (Debian's redis-server), checked through commands alone:
/// `--ready` tells when it is up, `--digest` what it holds. Killed while suspended, it comes back empty without
/// persistence (`mismatch`) and whole with a `SAVE` hook at didEnterBackground (`match`).
@Suite(
  "Commands as the protocol", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct CommandProtocolTests {
  static let redisServer = "/usr/bin/redis-server"
  static let redisCLI = "/usr/bin/redis-cli"

  /// `redis-cli -p PORT ARGS…` from the test, its output trimmed.
  static func cli(_ port: UInt16, _ arguments: [String]) throws -> String {
    let result = try runCommand(redisCLI, ["-p", "\(port)"] + arguments, timeout: .seconds(10))
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Launches redis as app `name` with `--ready` and `--digest` (and `options`), puts data in, moves it to the
  /// background and waits for its saved digest, suspends it, has jetsam kill it under pressure, and relaunches it;
  /// returns the digest the test read itself before the kill, the kill's record, and the relaunch's `ps` row once it
  /// has its verdict.
  static func killWhileSuspendedAndRelaunch(_ daemon: DaemonHarness, _ name: String, options: [String]) throws
    -> (digest: String, record: ExitRecord, info: AppInfo)
  {
    let port = try SocketDefunctTests.freePort()
    let directory = daemon.directory + "/redis"
    #expect(mkdir(directory, 0o700) == 0)
    let server = [
      redisServer, "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory,
      "--dbfilename", "dump.rdb", "--enable-debug-command", "local",
    ]
    let launched = try daemon.ctl(
      [
        "launch", name, "--ready", "\(redisCLI) -p \(port) PING", "--digest", "\(redisCLI) -p \(port) DEBUG DIGEST",
      ] + options.map { $0.replacingOccurrences(of: "PORT", with: "\(port)") } + ["--"] + server)
    #expect(launched.status == 0, "\(launched.stderr)")
    try daemon.waitUntil("redis to answer") { (try? cli(port, ["PING"])) == "PONG" }
    #expect(try cli(port, ["SET", "greeting", "hello"]) == "OK")
    #expect(try cli(port, ["RPUSH", "list", "a", "b", "c"]) == "3")
    let digest = try cli(port, ["DEBUG", "DIGEST"])
    #expect(digest.count == 40 && digest != String(repeating: "0", count: 40), "\(digest)")

    #expect(try daemon.ctl(["background", name]).status == 0)
    try daemon.waitUntil("\(name)'s digest command to report its saved state") {
      try daemon.apps()[name]?.status.savedDigest != nil
    }
    #expect(try daemon.apps()[name]?.status.savedDigest == digest, "what the digest command printed")
    let (record, info) = try RestorationTests.jetsamKillWhileSuspendedAndRelaunch(daemon, name)
    #expect(record.savedState.digest == digest)
    // The verdict is kept in the relaunch's exit record too; the kill also ends the server (no redis is left).
    #expect(try daemon.ctl(["kill", name]).status == 0)
    let judged = try daemon.waitForRecords(2).last
    #expect(judged?.launch == 2 && judged?.savedState.restoration == info.status.restoration)
    return (digest, record, info)
  }

  @Test("without persistence, redis killed while suspended comes back empty: mismatch")
  func withoutSaveMismatch() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let (digest, _, info) = try Self.killWhileSuspendedAndRelaunch(daemon, "redis", options: [])
    #expect(info.status.restoration == .mismatch)
    #expect(info.status.previousDigest == digest)
    #expect(info.status.restoredDigest == String(repeating: "0", count: 40), "an empty dataset's digest")
  }

  @Test("with SAVE at didEnterBackground, redis reloads what it held: match")
  func withSaveMatch() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    let (digest, _, info) = try Self.killWhileSuspendedAndRelaunch(
      daemon, "redis", options: ["--on", "didEnterBackground=\(Self.redisCLI) -p PORT SAVE"])
    #expect(info.status.restoration == .match)
    #expect(info.status.restoredDigest == digest)
  }

  @Test("bad commands are refused with the flag or field they came in")
  func refused() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let unknownEvent = try daemon.ctl(["launch", "x", "--on", "didSave=true", "--", "/bin/sleep", "60"])
    #expect(unknownEvent.status == 64)
    #expect(unknownEvent.stderr.contains("--on didSave: unknown lifecycle event"), "\(unknownEvent.stderr)")
    let validity = try daemon.ctl(["launch", "x", "--digest-valid-for", "10", "--", "/bin/sleep", "60"])
    #expect(validity.status == 64 && validity.stderr.contains("--digest-valid-for: needs --digest"))
    let empty = try daemon.ctl(["launch", "x", "--ready", " ", "--", "/bin/sleep", "60"])
    #expect(empty.status == 64 && empty.stderr.contains("--ready: the command is empty"))
    #expect(try daemon.apps()["x"] == nil, "nothing was launched")
  }
}
