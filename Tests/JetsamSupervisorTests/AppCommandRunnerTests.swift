import JetsamCore
import JetsamPlatform
import JetsamValues
import Testing

@testable import JetsamShell

/// The commands that speak for a program (`ready`, `digest`): started through the launcher, their output read once
/// they have ended, killed at their timeout, and what they print taken as a digest only when it is one.
@Suite("App command runner")
struct AppCommandRunnerTests {
  let loop = FakeLoop()
  let launcher = FakeLauncher()
  let signals = FakeSignals()
  let runner: AppCommandRunner

  init() {
    runner = AppCommandRunner(loop: loop, launcher: launcher, signals: signals)
  }

  func run(keepsOutput: Bool = true, timeout: Duration = .seconds(5)) -> () -> [AppCommandOutcome] {
    final class Box { var outcomes: [AppCommandOutcome] = [] }
    let box = Box()
    runner.run(
      for: "a", keepsOutput: keepsOutput, timeout: timeout,
      request: { stdout in SpawnRequest(arguments: ["/bin/digest"], cgroupDirectory: nil, stdout: stdout) },
      ended: { box.outcomes.append($0) })
    return { box.outcomes }
  }

  @Test("its output is read once it has ended, with how it ended; its pidfd is then let go")
  func outputAndEnd() throws {
    launcher.output = { _ in "264ccf65\n" }
    let outcomes = run()
    let process = try #require(launcher.spawned.first)
    launcher.ends[process.pid] = .exited(code: 0)
    #expect(outcomes().isEmpty, "not before it ended")
    loop.ready(process.pidfd)
    #expect(outcomes().count == 1)
    #expect(outcomes().first?.end == .exited(code: 0) && outcomes().first?.output == "264ccf65\n")
    #expect(outcomes().first?.timedOut == false && outcomes().first?.failure == nil)
    #expect(!loop.isWatched(process.pidfd))
    #expect(launcher.discarded.isEmpty, "its status is what it answers")
  }

  @Test("one that outlives its timeout is killed, and reported as timed out")
  func timeout() throws {
    let outcomes = run(timeout: .seconds(2))
    let process = try #require(launcher.spawned.first)
    loop.advance(by: .seconds(2))
    #expect(signals.sentThroughPidfd == [.kill])
    launcher.ends[process.pid] = .signaled(signal: Signal.kill.rawValue, dumpedCore: false)
    loop.ready(process.pidfd)
    #expect(outcomes().first?.timedOut == true)
  }

  @Test("one that cannot start says why")
  func cannotStart() {
    launcher.failSpawns = true
    let outcomes = run()
    #expect(outcomes().count == 1)
    #expect(outcomes().first?.failure?.hasPrefix("could not start: ") == true, "\(outcomes())")
  }

  @Test("a child of the spawner service is reported once the service tells how it ended")
  func spawnerService() throws {
    launcher.answersLater = true
    let outcomes = run(keepsOutput: false)
    launcher.answerSpawns()
    let process = try #require(launcher.spawned.first)
    loop.ready(process.pidfd)
    #expect(outcomes().isEmpty, "the service has not told yet")
    runner.exitKnown(process.pid)
    #expect(outcomes().isEmpty)
    launcher.exitKnown = { [runner] pid in runner.exitKnown(pid) }
    launcher.tellEnd(.exited(code: 1), of: process.pid)
    #expect(outcomes().first?.end == .exited(code: 1))
  }

  @Test("an app that is gone takes its commands' reports with it")
  func forget() throws {
    let outcomes = run()
    let process = try #require(launcher.spawned.first)
    runner.forget("a")
    #expect(!loop.isWatched(process.pidfd))
    #expect(outcomes().isEmpty)
  }

  @Test(
    "a digest is one line, trimmed, of at most 1024 bytes, from a run that exited 0",
    arguments: [
      (AppCommandOutcome(end: .exited(code: 0), output: "  264ccf65\n\n"), "264ccf65"),
      (AppCommandOutcome(end: .exited(code: 0), output: "a\nb\n"), nil),
      (AppCommandOutcome(end: .exited(code: 0), output: " \n"), nil),
      (AppCommandOutcome(end: .exited(code: 0), output: String(repeating: "x", count: 1025)), nil),
      (AppCommandOutcome(end: .exited(code: 1), output: "264ccf65\n"), nil),
      (AppCommandOutcome(end: .exited(code: 0), output: "264ccf65\n", timedOut: true), nil),
    ] as [(AppCommandOutcome, String?)])
  func digest(outcome: AppCommandOutcome, expected: String?) {
    #expect((try? AppSupervisor.digest(in: outcome).get()) == expected)
  }
}
