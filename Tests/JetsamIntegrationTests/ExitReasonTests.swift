import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Real apps that end in every way the foundation classifies, each checked in the durable record log.
@Suite(
  "Exit reasons of real processes", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct ExitReasonTests {
  struct Case: Sendable, CustomStringConvertible {
    var arguments: [String]
    var reason: ExitReason
    var signal: Int32?
    var exitCode: Int32?
    var terminationReason: String
    var description: String { arguments.joined(separator: " ") }
  }

  static let cases: [Case] = [
    Case(arguments: ["crash", "segv"], reason: .badAccess, signal: 11, terminationReason: "SIGNAL 0xb"),
    Case(arguments: ["crash", "bus"], reason: .badAccess, signal: 7, terminationReason: "SIGNAL 0x7"),
    Case(arguments: ["crash", "ill"], reason: .illegalInstruction, signal: 4, terminationReason: "SIGNAL 0x4"),
    Case(arguments: ["crash", "abort"], reason: .abnormal, signal: 6, terminationReason: "SIGNAL 0x6"),
    Case(arguments: ["crash", "trap"], reason: .abnormal, signal: 5, terminationReason: "SIGNAL 0x5"),
    Case(arguments: ["exit", "3"], reason: .abnormal, exitCode: 3, terminationReason: "EXIT 3"),
    Case(arguments: ["exit", "0"], reason: .normalAppExit, exitCode: 0, terminationReason: "EXIT 0"),
  ]

  @Test("each way of ending gets its MetricKit reason", arguments: cases)
  func classified(_ testCase: Case) throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("crasher", testCase.arguments)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "crasher")
    #expect(record.pid == pid)
    #expect(record.launch == 1)
    #expect(record.cause.reason == testCase.reason)
    #expect(record.cause.terminationReason == testCase.terminationReason)
    #expect(record.cause.signal == testCase.signal)
    #expect(record.cause.exitCode == testCase.exitCode)
    #expect(record.lifecycle.state == .foreground)
    #expect(record.pressure.snapshot == nil)
    #expect(!isAlive(pid))
  }

  @Test("an app touching memory past its cap is killed by the kernel and recorded as memoryResourceLimit")
  func memoryCap() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("hog", ["alloc", "200", "--hold"], options: ["--memory-limit", "32M"])
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == pid)
    #expect(record.cause.reason == .memoryResourceLimit)
    #expect(record.cause.terminationReason == "JETSAM per-process-limit")
    #expect(record.cause.signal == 9)
    #expect(record.usage.memoryLimitBytes == 32 << 20)
    #expect(record.usage.peakMemoryBytes >= 30 << 20)
  }

  @Test("an outside SIGKILL is abnormal, not a memory-limit kill")
  func outsideKill() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("victim", ["idle"], options: ["--memory-limit", "64M"])
    kill(pid, SIGKILL)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.cause.reason == .abnormal)
    #expect(record.cause.terminationReason == "SIGNAL 0x9")
  }

  @Test(
    "kill --reason records exactly that reason",
    arguments: [ExitReason.appWatchdog, .memoryPressure, .cpuResourceLimit])
  func requestedReason(_ reason: ExitReason) throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = try daemon.launch("target", ["idle"])
    let result = try daemon.ctl(["kill", "target", "--reason", reason.rawValue])
    #expect(result.status == 0, "\(result.stderr)")
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.pid == pid)
    #expect(record.cause.reason == reason)
    #expect(record.cause.signal == 9)
  }
}
