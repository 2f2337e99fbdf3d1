import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `--digest-valid-for` on a real redis-server: its digest does not change while it is suspended, so a return after
/// the saved state's validity shows stale state (`stale`) and one within it current state (`fresh`). The exit
/// records keep the commands each launch ran.
@Suite(
  "Commands judge resumptions", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct CommandResumptionTests {
  /// Launches redis as `name` with `--ready`, `--digest`, `--digest-valid-for validFor` and `options`, puts a key in,
  /// moves it to the background and waits for its saved digest; returns its port and when the save was seen.
  static func launchAndSave(_ daemon: DaemonHarness, _ name: String, validFor: String, options: [String] = [])
    throws -> (port: UInt16, savedSeen: ContinuousClock.Instant)
  {
    let port = try SocketDefunctTests.freePort()
    let cli = "\(CommandProtocolTests.redisCLI) -p \(port)"
    let launched = try daemon.ctl(
      // Its listener must outlive the suspension (defunct, the default, destroys it: redis then answers no one).
      [
        "launch", name, "--sockets", "keep", "--ready", "\(cli) PING", "--digest", "\(cli) DEBUG DIGEST",
        "--digest-valid-for", validFor,
      ]
        + options.map { $0.replacingOccurrences(of: "CLI", with: cli) } + [
          "--", CommandProtocolTests.redisServer, "--port", "\(port)", "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", daemon.directory, "--dbfilename", "\(name).rdb", "--enable-debug-command",
          "local",
        ])
    #expect(launched.status == 0, "\(launched.stderr)")
    try daemon.waitUntil("\(name) to answer") { (try? CommandProtocolTests.cli(port, ["PING"])) == "PONG" }
    #expect(try CommandProtocolTests.cli(port, ["SET", "greeting", "hello"]) == "OK")
    #expect(try daemon.ctl(["background", name]).status == 0)
    try daemon.waitUntil("\(name)'s saved digest") { try daemon.apps()[name]?.status.savedDigest != nil }
    return (port, .now)
  }

  /// Suspends `name`, activates it, and returns its `ps` row once its return is judged.
  static func returnAndJudge(_ daemon: DaemonHarness, _ name: String, after wait: (() throws -> Void)? = nil)
    throws -> AppInfo
  {
    let suspended = try daemon.ctl(["suspend", name])
    let row = try daemon.apps()[name]
    #expect(suspended.status == 0, "\(suspended.stderr) \(String(describing: row))")
    try daemon.waitUntil("\(name) suspended") { try daemon.apps()[name]?.status.state.coarse == .suspended }
    try wait?()
    #expect(try daemon.ctl(["activate", name]).status == 0)
    try daemon.waitUntil("\(name)'s return to be judged") { try daemon.apps()[name]?.status.resumption?.verdict != nil }
    return try #require(try daemon.apps()[name])
  }

  @Test("suspended past its digest's validity, redis shows what it saved: stale; within it: fresh")
  func staleAndFresh() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }

    // Valid for a second: the return waits until more than that has passed since the save was seen (the save
    // itself was earlier still), judged on the clock, not slept.
    let (_, savedSeen) = try Self.launchAndSave(daemon, "brief", validFor: "1")
    let stale = try Self.returnAndJudge(daemon, "brief") {
      try daemon.waitUntil("the saved state to outlive its validity") {
        ContinuousClock.now - savedSeen > .seconds(1.2)
      }
    }
    #expect(stale.status.resumption?.verdict == .stale, "\(stale)")
    #expect(stale.status.resumption?.resumedDigest == stale.status.savedDigest, "redis shows exactly what it saved")
    #expect(stale.status.speaksProtocol == false, "only commands speak for redis")

    // Valid for ten minutes: a return within it is fresh. A hook's run is kept too.
    _ = try Self.launchAndSave(daemon, "lasting", validFor: "600", options: ["--on", "didEnterBackground=CLI SAVE"])
    let fresh = try Self.returnAndJudge(daemon, "lasting")
    #expect(fresh.status.resumption?.verdict == .fresh, "\(fresh)")

    // Each launch's exit record keeps the commands it ran: ready once (with its attempts), each digest, the hook.
    #expect(try daemon.ctl(["kill", "brief"]).status == 0)
    #expect(try daemon.ctl(["kill", "lasting"]).status == 0)
    let records = try daemon.waitForRecords(2)
    let brief = try #require(records.first { $0.app == "brief" })
    #expect(brief.savedState.resumption == .stale)
    let runs = try #require(brief.commands, "\(brief)")
    // (The kill's didEnterBackground takes one more saved digest.)
    // In the order they ended: a ready poll that failed at first may succeed after the saved digest (it is kept once,
    // where its last poll ended).
    #expect(runs.filter { $0.run == "ready" }.count == 1, "\(runs)")
    #expect(runs.map(\.run).filter { $0 != "ready" }.starts(with: ["digest saved", "digest resumed"]), "\(runs)")
    let ready = try #require(runs.first { $0.run == "ready" }, "\(runs)")
    #expect(ready.exitCode == 0 && ready.output?.contains("PONG") == true && (ready.attempts ?? 0) >= 1)
    let saved = try #require(runs.first { $0.run == "digest saved" }, "\(runs)")
    #expect(saved.output?.trimmingCharacters(in: .whitespacesAndNewlines) == stale.status.savedDigest)
    #expect(runs.allSatisfy { $0.seconds > 0 && $0.seconds < 10 })
    let lasting = try #require(records.first { $0.app == "lasting" })
    let hook = try #require(lasting.commands?.first { $0.run == "hook didEnterBackground" }, "\(lasting)")
    #expect(hook.exitCode == 0 && hook.output?.contains("OK") == true, "\(hook)")
    #expect(hook.command.last?.hasSuffix(" SAVE") == true, "run as sh -c CMD: \(hook.command)")

    let text = try daemon.ctl(["exits"])
    #expect(text.stdout.contains("brief launch 1: ready ("), "\(text.stdout)")
    #expect(text.stdout.contains("lasting launch 1: hook didEnterBackground ("), "\(text.stdout)")
  }
}
