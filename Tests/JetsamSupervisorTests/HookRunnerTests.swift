import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// Command hooks: started through the launcher, their end seen on their pidfd (never waited for), with how they
/// ended and what they printed (for the exit record), once; no timeout of their own.
@Suite("Hook runner")
struct HookRunnerTests {
  let loop = FakeLoop()
  let launcher = FakeLauncher()
  let signals = FakeSignals()
  let runner: HookRunner

  init() {
    // No log is written here: the supervisor copies runs' output, not the runner.
    runner = HookRunner(
      loop: loop, launcher: launcher, signals: signals, requests: SpawnRequests(stateDirectory: "/nonexistent"))
  }

  func run(_ command: String, for name: String, ended: @escaping (AppCommandOutcome) -> Void) {
    runner.commands.run(
      for: name, keepsOutput: true, timeout: nil,
      request: { stdout in SpawnRequest(arguments: [command], cgroupDirectory: nil, stdout: stdout) },
      ended: ended)
  }

  @Test("a hook's end on its pidfd is told once, with its status and output; it has no timeout of its own")
  func endedOnce() throws {
    launcher.output = { _ in "saved 3 keys\n" }
    var ended: [AppCommandOutcome] = []
    run("/bin/flush", for: "a") { ended.append($0) }
    let hook = try #require(launcher.spawned.first)
    loop.advance(by: .seconds(3600))
    #expect(signals.sentThroughPidfd.isEmpty, "killed by a timeout it does not have")
    #expect(ended.isEmpty, "told before it ended")
    launcher.ends[hook.pid] = .exited(code: 2)
    loop.ready(hook.pidfd)
    #expect(ended.count == 1)
    #expect(ended.first?.end == .exited(code: 2) && ended.first?.output == "saved 3 keys\n")
    #expect(!loop.isWatched(hook.pidfd))
  }

  @Test("forgetting an app stops watching its hooks: their end answers nothing; another app's still does")
  func forget() throws {
    var ended: [String] = []
    run("/bin/a1", for: "a") { _ in ended.append("a1") }
    run("/bin/a2", for: "a") { _ in ended.append("a2") }
    run("/bin/b", for: "b") { _ in ended.append("b") }
    let pidfds = launcher.spawned.map(\.pidfd)
    try #require(pidfds.count == 3)
    for process in launcher.spawned { launcher.ends[process.pid] = .exited(code: 0) }
    runner.forget("a")
    #expect(!loop.isWatched(pidfds[0]) && !loop.isWatched(pidfds[1]) && loop.isWatched(pidfds[2]))
    for pidfd in pidfds { loop.ready(pidfd) }
    #expect(ended == ["b"])
  }
}
