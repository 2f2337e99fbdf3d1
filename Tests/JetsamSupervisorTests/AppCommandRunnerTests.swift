import Foundation
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamValues
import Synchronization
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

/// A command that prints without stopping costs the loop one slice per turn: what its pipe holds past the last
/// ``AppCommandRunner/maximumOutput`` bytes is dropped in the kernel, one read takes the rest, and a full read leaves
/// the pipe unwatched for a pause. The test writes the command's output itself, through its own copy of the pipe's
/// write end (non-blocking, as a process the command left behind would hold it).
extension AppCommandRunnerTests {
  final class Flag: Sendable { let value = Atomic<Bool>(true) }
  final class Counter: Sendable { let value = Atomic<Int>(0) }

  struct Written {
    let outcomes: () -> [AppCommandOutcome]
    let process: SpawnedProcess
    /// The runner's read end of the pipe.
    let pipe: FileDescriptor
    /// The test's copy of its write end.
    let writer: FileDescriptor
  }

  func runWritten() throws -> Written {
    final class Box {
      var outcomes: [AppCommandOutcome] = []
      var writer: FileDescriptor?
    }
    let box = Box()
    runner.run(
      for: "a", keepsOutput: true, timeout: .seconds(5),
      request: { stdout in
        box.writer = try stdout?.duplicate()
        return SpawnRequest(arguments: ["/usr/bin/yes"], cgroupDirectory: nil, stdout: stdout)
      },
      ended: { box.outcomes.append($0) })
    let writer = try #require(box.writer)
    #expect(fcntl(writer.rawValue, F_SETFL, fcntl(writer.rawValue, F_GETFL) | O_NONBLOCK) == 0)
    let process = try #require(launcher.spawned.first)
    let pipe = try #require(loop.watches.keys.first { $0 != process.pidfd.rawValue })
    return Written(outcomes: { box.outcomes }, process: process, pipe: FileDescriptor(rawValue: pipe), writer: writer)
  }

  /// Writes as much of `bytes` as the pipe takes now; how much that was.
  static func write(_ bytes: [UInt8], to fd: FileDescriptor) -> Int {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress! + written, $0.count - written) }
      guard count > 0 else { break }
      written += count
    }
    return written
  }

  /// Whether `fd` has something to read now.
  static func isReadable(_ fd: FileDescriptor) -> Bool {
    var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  /// Numbered lines, so that a tail out of place would show.
  static func lines(_ range: Range<Int>) -> [UInt8] { Array(range.map { "line \($0)\n" }.joined().utf8) }

  @Test("output past what is kept is dropped, one slice per readable event: exactly its last maximumOutput bytes")
  func floodKeepsTail() throws {
    let run = try runWritten()
    defer { run.writer.close() }
    let first = Self.lines(0..<30_000)
    #expect(first.count > 4 * AppCommandRunner.maximumOutput)
    try #require(Self.write(first, to: run.writer) == first.count, "the pipe takes it all (it was made larger)")

    loop.ready(run.pipe)
    // One slice took it all: the excess dropped in the kernel, the rest in one read, which came back full.
    #expect(!Self.isReadable(run.pipe), "the pipe was emptied")
    #expect(!loop.isWatched(run.pipe), "a full read leaves the pipe unwatched for a pause")
    #expect(
      loop.timers.contains { !$0.cancelled && $0.deadline == loop.now().advanced(by: AppCommandRunner.floodPause) })

    let second = Array("the last line\n".utf8)
    #expect(Self.write(second, to: run.writer) == second.count)
    loop.advance(by: AppCommandRunner.floodPause)
    #expect(!Self.isReadable(run.pipe), "the pause's end read a slice")
    #expect(loop.isWatched(run.pipe), "a short read watches the pipe again")

    launcher.ends[run.process.pid] = .exited(code: 0)
    loop.ready(run.process.pidfd)
    let output = try #require(run.outcomes().first?.output)
    #expect(output.utf8.count == AppCommandRunner.maximumOutput)
    #expect(output == String(decoding: (first + second).suffix(AppCommandRunner.maximumOutput), as: UTF8.self))
  }

  @Test("at the end, whatever the pipe holds, one slice keeps exactly its last maximumOutput bytes")
  func endKeepsTail() throws {
    let run = try runWritten()
    defer { run.writer.close() }
    let written = Self.lines(0..<50_000)
    try #require(Self.write(written, to: run.writer) == written.count)
    launcher.ends[run.process.pid] = .exited(code: 0)
    loop.ready(run.process.pidfd)
    #expect(
      run.outcomes().first?.output
        == String(decoding: written.suffix(AppCommandRunner.maximumOutput), as: UTF8.self))
    #expect(!loop.isWatched(run.pipe))
  }

  @Test("a process left behind that writes without stopping does not hold the end's report: one slice, no wait")
  func endDoesNotWaitForEndOfFile() throws {
    let run = try runWritten()
    // The writer's own reader: the runner's read end closes at the end, and the writer must never see EPIPE.
    let reader = try run.pipe.duplicate()
    let writing = Flag()
    let writes = Counter()
    let writer = run.writer
    // Writes of PIPE_BUF are whole or not at all: the stream stays `y\n` lines whatever is dropped.
    let chunk = Array(String(repeating: "y\n", count: 2048).utf8)
    let thread = Thread {
      while writing.value.load(ordering: .relaxed) {
        if Self.write(chunk, to: writer) > 0 { writes.value.add(1, ordering: .relaxed) } else { usleep(50) }
      }
    }
    thread.start()
    defer {
      writing.value.store(false, ordering: .relaxed)
      while !thread.isFinished { usleep(1000) }
      run.writer.close()
      reader.close()
    }
    while writes.value.load(ordering: .relaxed) < 64 { usleep(1000) }

    launcher.ends[run.process.pid] = .exited(code: 0)
    loop.ready(run.process.pidfd)
    #expect(run.outcomes().count == 1)
    #expect(
      run.outcomes().first?.output == String(repeating: "y\n", count: AppCommandRunner.maximumOutput / 2))
  }

  @Test("the tail kept is the stream's last bytes across reads of any size, oldest first")
  func outputTail() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer { for end in ends { close(end) } }
    var tail = OutputTail(capacity: 10)
    var written: [UInt8] = []
    for (index, size) in [3, 4, 5, 10, 1, 12, 9].enumerated() {
      let bytes = (0..<size).map { UInt8(65 + (index * 7 + $0) % 26) }
      #expect(Self.write(bytes, to: FileDescriptor(rawValue: ends[1])) == size)
      written += bytes
      var read = 0
      while read < size {
        let count = tail.read(from: ends[0], atMost: size - read)
        try #require(count > 0)
        read += count
      }
      #expect(tail.bytes == Array(written.suffix(10)), "after \(written.count) bytes")
    }
  }
}
