import JetsamSpawning
import Testing

@testable import JetsamShell

/// Command hooks: started through the launcher, their end seen on their pidfd (never waited for) answers the event
/// they ran for, once.
@Suite("Hook runner")
struct HookRunnerTests {
  let loop = FakeLoop()
  let launcher = FakeLauncher()
  let runner: HookRunner

  init() {
    runner = HookRunner(loop: loop, launcher: launcher, signals: FakeSignals())
  }

  func request(_ command: String) -> SpawnRequest {
    SpawnRequest(arguments: [command], cgroupDirectory: nil)
  }

  @Test("a hook's end on its pidfd answers once, reaped, its status dropped, its pidfd no longer watched")
  func endAnswers() throws {
    var ended: [SpawnError?] = []
    runner.run(request("/bin/flush"), for: "a") { ended.append($0) }
    #expect(launcher.requests.map(\.arguments) == [["/bin/flush"]])
    let hook = try #require(launcher.spawned.first)
    #expect(launcher.discarded == [hook.pid], "only its end matters, not how it ended")
    #expect(ended.isEmpty, "answered before it ended")
    #expect(loop.isWatched(hook.pidfd))
    loop.ready(hook.pidfd)
    #expect(ended.count == 1 && ended.first! == nil)
    #expect(!loop.isWatched(hook.pidfd))
    loop.ready(hook.pidfd)
    #expect(ended.count == 1, "answered twice")
  }

  @Test("a hook that cannot start answers at once, with why")
  func cannotStart() {
    launcher.failSpawns = true
    var ended: [SpawnError?] = []
    runner.run(request("/bin/missing"), for: "a") { ended.append($0) }
    #expect(ended.count == 1)
    #expect(ended.first??.stage == .resolveExecutable)
  }

  @Test("a hook whose pidfd cannot be watched counts as ended at once rather than never")
  func unwatchable() {
    loop.failWatches = true
    var ended: [SpawnError?] = []
    runner.run(request("/bin/flush"), for: "a") { ended.append($0) }
    #expect(ended.count == 1 && ended.first! == nil)
  }

  @Test("forgetting an app stops watching its hooks: their end answers nothing; another app's still does")
  func forget() throws {
    var ended: [String] = []
    runner.run(request("/bin/a1"), for: "a") { _ in ended.append("a1") }
    runner.run(request("/bin/a2"), for: "a") { _ in ended.append("a2") }
    runner.run(request("/bin/b"), for: "b") { _ in ended.append("b") }
    let pidfds = launcher.spawned.map(\.pidfd)
    try #require(pidfds.count == 3)
    runner.forget("a")
    #expect(!loop.isWatched(pidfds[0]) && !loop.isWatched(pidfds[1]) && loop.isWatched(pidfds[2]))
    for pidfd in pidfds { loop.ready(pidfd) }
    #expect(ended == ["b"])
  }
}
