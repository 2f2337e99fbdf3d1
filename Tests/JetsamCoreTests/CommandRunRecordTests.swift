import JetsamCore
import JetsamValues
import Testing

/// What a launch's exit record keeps of the commands it ran: `ready` once with its attempts, the latest 16 runs,
/// the last KiB of each one's output.
@Suite("Command run records")
struct CommandRunRecordTests {
  static func run(_ name: String, output: String? = nil) -> CommandRunRecord {
    CommandRunRecord(run: name, command: ["/bin/sh", "-c", name], exitCode: 0, seconds: 0.01, output: output)
  }

  /// The record of app `a`'s exit (pid 10) at `at`.
  static func exitRecord(_ policy: inout JetsamPolicy, at: Instant) throws -> ExitRecord {
    let actions = policy.observe(.exited(app: "a", pid: 10, end: .exited(code: 0), oomKilled: false, at: at))
    return try #require(actions.lazy.compactMap { if case .recordExit(let r) = $0 { r } else { nil } }.first)
  }

  @Test("ready is kept once, its last poll with the attempts so far; other runs in order")
  func readyOnce() throws {
    var policy = AppCommandsTests.policy()
    _ = try AppCommandsTests.launch(&policy, AppCommands(ready: AppCommandsTests.ready))
    policy.observe(.commandRunObserved(app: "a", pid: 10, run: Self.run("ready", output: "refused"), at: t(0)))
    policy.observe(.commandEnded(app: "a", pid: 10, run: .ready, succeeded: false, at: t(0)))
    _ = policy.observe(.tick(at: t(1)))
    policy.observe(.commandRunObserved(app: "a", pid: 10, run: Self.run("ready", output: "PONG\n"), at: t(1)))
    policy.observe(.commandRunObserved(app: "a", pid: 11, run: Self.run("hook elsewhere"), at: t(1)))
    policy.observe(.commandRunObserved(app: "a", pid: 10, run: Self.run("hook didEnterBackground"), at: t(2)))
    let runs = try #require(try Self.exitRecord(&policy, at: t(3)).commands)
    #expect(runs.map(\.run) == ["ready", "hook didEnterBackground"], "another process's run is not this launch's")
    #expect(runs[0].attempts == 2 && runs[0].output == "PONG\n")
  }

  @Test("the latest 16 runs are kept, each with the last 1024 bytes it printed; none: no field")
  func bounds() throws {
    var policy = AppCommandsTests.policy()
    _ = try AppCommandsTests.launch(&policy, AppCommands())
    let long = String(repeating: "a", count: 2000) + "é" + String(repeating: "z", count: 1023)
    for index in 0..<20 {
      policy.observe(.commandRunObserved(app: "a", pid: 10, run: Self.run("hook \(index)", output: long), at: t(1)))
    }
    let runs = try #require(try Self.exitRecord(&policy, at: t(2)).commands)
    #expect(runs.count == 16 && runs.first?.run == "hook 4" && runs.last?.run == "hook 19")
    #expect(runs[0].output == String(repeating: "z", count: 1023), "cut at a character's start, within 1024 bytes")

    var quiet = AppCommandsTests.policy()
    _ = try AppCommandsTests.launch(&quiet, AppCommands())
    #expect(try Self.exitRecord(&quiet, at: t(1)).commands == nil)
  }
}
