import Foundation
import Glibc
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The test kit's own way of running programs (`runCommand`, `ChildProcess`): what they report of a real program,
/// and that a background process the program leaves behind holding its output does not hold them up.
@Suite("test kit programs", .timeLimit(.minutes(1)), .offThePool)
struct TestKitProcessTests {
  /// The pid of the background `sleep` a shell printed, after checking that it is that sleep.
  private func backgroundSleep(_ line: Substring?) throws -> Int32 {
    let pid = try #require(line.flatMap { Int32($0) }, "no pid printed")
    // The shell prints it as soon as it has forked: the child may not have executed sleep yet.
    var command = ""
    let isSleep = eventually(timeout: .seconds(10)) {
      command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
      return command.hasPrefix("sleep\0")
    }
    try #require(isSleep, "pid \(pid) runs \(command.debugDescription), not the sleep")
    return pid
  }

  @Test("runCommand returns once the program has ended, though its background child still holds its stdout")
  func commandLeavesBackgroundChild() throws {
    // Waiting for the pipes' end of file would run into the timeout (the sleep holds them for 60 s).
    let result = try runCommand(
      "/bin/sh", ["-c", "sleep 60 & echo $!; echo hi; echo oops >&2; exit 3"], timeout: .seconds(20))
    let lines = result.stdout.split(separator: "\n")
    let sleeper = try backgroundSleep(lines.first)
    defer { kill(sleeper, SIGKILL) }
    #expect(lines.dropFirst() == ["hi"])
    #expect(result.stderr == "oops\n")
    #expect(result.status == 3)
    #expect(isAlive(sleeper), "the background child was not left alone")
  }

  @Test("runCommand SIGKILLs a program that outlives its timeout, and says so")
  func commandTimeout() throws {
    let marker = FileManager.default.temporaryDirectory.appendingPathComponent(
      "testkit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    ).path
    defer { unlink(marker) }
    #expect(throws: TestKitError.self) {
      try runCommand("/bin/sh", ["-c", "echo $$ > \(marker); exec sleep 60"], timeout: .milliseconds(500))
    }
    let pid = try #require(
      Int32(try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(!isAlive(pid), "the program still runs after its timeout")
  }

  @Test("a ChildProcess's lines are logged, its end is seen though a background child holds its output")
  func childLeavesBackgroundChild() throws {
    let child = try ChildProcess("/bin/sh", ["-c", "sleep 60 & echo $!; echo to stderr >&2; exec sleep 60"])
    defer { child.stop(signal: SIGKILL) }
    #expect(eventually(timeout: .seconds(10)) { child.log.all.count == 2 }, "\(child.log.text)")
    let sleeper = try backgroundSleep(child.log.all.first.map { Substring($0.text) })
    defer { kill(sleeper, SIGKILL) }
    #expect(child.log.all.last?.text == "to stderr")
    #expect(child.isRunning && child.terminationStatus == -1)
    child.signal(SIGTERM)
    let waited = ContinuousClock.now
    #expect(child.waitForExit(timeout: 10), "SIGTERM did not end it")
    // Its end is enough: the pipe's end of file, which the sleep holds off, is not waited for.
    #expect(ContinuousClock.now - waited < .seconds(9), "waitForExit waited for the pipe's end of file")
    #expect(!child.isRunning && child.terminationStatus == SIGTERM)
    #expect(isAlive(sleeper))
  }

  @Test("once waitForExit says a ChildProcess ended, its log holds every line it wrote")
  func childLogCompleteAtExit() throws {
    // Read at once, not waited for: the reader thread may not have read the pipe yet when the end is seen.
    for _ in 0..<20 {
      let child = try ChildProcess("/usr/bin/seq", ["1", "3000"])
      defer { child.stop(signal: SIGKILL) }
      #expect(child.waitForExit(timeout: 30))
      let lines = child.log.all.map(\.text)
      #expect(lines.count == 3000 && lines.last == "3000", "\(lines.count) lines: \(lines.suffix(2))")
    }
  }
}
