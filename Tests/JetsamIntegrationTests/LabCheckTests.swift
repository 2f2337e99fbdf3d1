import Foundation
import FoundationXML
import Glibc
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `jetsam-lab check`: the demo app passes the battery in its correct mode, and each misbehaviour fails it at the
/// check that should catch it, first.
@Suite(
  "Lab checks", .enabled(if: isRoot, "needs root: the battery's jetsamd creates cgroups"),
  .timeLimit(.minutes(10)), .offThePool)
struct LabCheckTests {
  /// The report card's lines: check name → (outcome, detail).
  static func card(_ output: String) -> [(check: String, outcome: String, detail: String)] {
    output.split(separator: "\n").compactMap { line in
      // `  FAIL  restoration                         launch 2: mismatch (…)`: two spaces or more end the name.
      guard let match = String(line).wholeMatch(of: /\s+(PASS|FAIL|SKIP|ERR)\s+(\S.*?)\s{2,}(.*)/) else { return nil }
      return (String(match.2), String(match.1), String(match.3))
    }
  }

  /// Runs the battery on the demo app with `flags`; its output and exit status.
  static func check(_ flags: [String], timeout: Duration = .seconds(180)) throws -> CommandResult {
    try check("notes", ["jetsam-demo-app"] + flags, timeout: timeout)
  }

  /// Runs the battery on `command` as app `name`, with check's `flags` (`--ready CMD`, …); its output and exit
  /// status. `inspect` reads the reports' directory before it is removed.
  static func check(
    _ name: String, _ command: [String], flags: [String] = [], timeout: Duration = .seconds(180),
    inspect: (String) throws -> Void = { _ in }
  ) throws -> CommandResult {
    let reports = NSTemporaryDirectory() + "jetsam-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: reports) }
    let result = try runCommand(
      Binaries.current.directory + "/jetsam-lab", ["check", name, "--output", reports] + flags + ["--"] + command,
      timeout: timeout)
    try inspect(reports)
    return result
  }

  /// The test cases of a JUnit file that were skipped: name → the skip's message.
  static func skippedCases(_ path: String) throws -> [String: String] {
    let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path))
    var cases: [String: String] = [:]
    for node in try document.nodes(forXPath: "//testcase") {
      guard let element = node as? XMLElement, let name = element.attribute(forName: "name")?.stringValue,
        let skipped = element.elements(forName: "skipped").first
      else { continue }
      cases[name] = skipped.attribute(forName: "message")?.stringValue ?? ""
    }
    return cases
  }

  @Test("the demo app's correct mode passes every check")
  func correctModePasses() throws {
    let result = try Self.check(["--feed-valid-for", "10"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let card = Self.card(result.stdout)
    #expect(card.count == 15, "\(result.stdout)")
    #expect(card.allSatisfy { $0.outcome == "PASS" }, "\(result.stdout)")
    #expect(
      card.map(\.check) == [
        "launch", "watchdog didFinishLaunching", "watchdog didBecomeActive", "watchdog willResignActive",
        "watchdog didEnterBackground", "watchdog willEnterForeground", "watchdog didBecomeActive (return)",
        "memoryWarning", "restoration", "backgroundTask", "backgroundCPU", "staleness", "sockets", "crash",
        "terminate",
      ])
    // The card ends with what jetsamd measured of the app over the battery: launch and resume times, hangs, signposts.
    let metrics = try #require(
      result.stdout.split(separator: "\n").first { $0.hasPrefix("  METRICS  notes: ") }, "\(result.stdout)")
    let figures = try Regex(
      #"^  METRICS  notes: launch [0-9,]+–[0-9,]+ ms ×\d.* · resume [0-9,]+–[0-9,]+ ms ×\d.* · hangs "#)
    #expect(metrics.contains(figures), "\(metrics)")
    #expect(metrics.contains("signposts save ×"), "\(metrics)")
  }

  @Test(
    "a program that speaks no protocol (python3 -m http.server) passes its crash check, and none that cannot judge it")
  func programWithoutProtocol() throws {
    let port = try SocketDefunctTests.freePort()
    var summary: [String: Any] = [:]
    var skipped: [String: String] = [:]
    // python3 as the user's PATH has it (a pyenv shim here: env and bash exec it, which once cost it its crash
    // handler).
    let result = try Self.check("web", ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"]) {
      summary = try LabTests.summary($0)
      skipped = try Self.skippedCases($0 + "/junit.xml")
    }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let card = Self.card(result.stdout)
    #expect(card.count == 15, "\(result.stdout)")
    let outcome = Dictionary(card.map { ($0.check, $0.outcome) }, uniquingKeysWith: { first, _ in first })
    #expect(outcome["crash"] == "PASS", "\(result.stdout)")
    // Nothing acknowledges its lifecycle events and nothing times them: no PASS that could not have been a FAIL.
    let watchdogs = card.filter { $0.check.hasPrefix("watchdog ") }
    #expect(watchdogs.count == 6, "\(result.stdout)")
    for check in watchdogs {
      #expect(check.outcome == "SKIP", "\(result.stdout)")
      #expect(check.detail.contains("it speaks no protocol and has no hook for "), "\(result.stdout)")
    }
    #expect(outcome["restoration"] == "SKIP", "\(result.stdout)")
    #expect(outcome["backgroundTask"] == "SKIP", "\(result.stdout)")
    #expect(outcome["launch"] == "PASS" && outcome["terminate"] == "PASS", "\(result.stdout)")

    // The summary: the crash step passed, on the record of a crash (SIGSEGV, with jetsam's crash diagnostic).
    let steps = try #require(summary["steps"] as? [[String: Any]])
    let stepOutcome = { (location: String) in
      steps.first { $0["location"] as? String == location }?["outcome"] as? String
    }
    #expect(stepOutcome("crash") == "passed", "\(steps)")
    #expect(stepOutcome("watchdog didEnterBackground") == "skipped", "\(steps)")
    #expect(stepOutcome("restoration") == "skipped", "\(steps)")
    let exits = try #require(summary["exits"] as? [[String: Any]])
    let crashes = exits.filter { $0["reason"] as? String == "badAccess" }
    #expect(crashes.count == 1, "\(exits)")
    #expect(crashes.first?["signal"] as? Int == Int(SIGSEGV) && crashes.first?["app"] as? String == "web")
    #expect((crashes.first?["diagnostics"] as? [String])?.count == 1, "\(exits)")

    // JUnit: a skipped test case for each check that could not judge, with why.
    let watchdogCases = skipped.filter { $0.key.hasPrefix("watchdog ") }
    #expect(watchdogCases.count == 6, "\(skipped)")
    #expect(watchdogCases.values.allSatisfy { $0.contains("speaks no protocol") }, "\(skipped)")
    #expect(skipped.keys.contains { $0.hasPrefix("restoration ") }, "\(skipped)")
    #expect(!skipped.keys.contains { $0.hasPrefix("crash ") }, "\(skipped)")
  }

  @Test("with four busy loops beside it, the battery gives the demo app the same report card as on an idle machine")
  func sameVerdictsOnABusyMachine() throws {
    let idle = try Self.check(["--feed-valid-for", "10"])
    #expect(idle.status == 0, "\(idle.stdout)\(idle.stderr)")
    let idleCard = Self.card(idle.stdout).map { "\($0.outcome) \($0.check)" }
    #expect(idleCard.count == 15, "\(idle.stdout)")

    // Four processes that never sleep, on a machine of fewer cores than that: started by pid, killed by pid.
    var loops: [ChildProcess] = []
    defer { for loop in loops { loop.stop(signal: SIGKILL, grace: 5) } }
    for _ in 0..<4 { loops.append(try ChildProcess(Binaries.current.testapp, ["spin"])) }
    // Each one burning before the battery starts.
    try waitUntil("the four busy loops to use CPU", timeout: .seconds(30), interval: .milliseconds(50)) {
      loops.allSatisfy { (cpuSeconds(of: $0.pid) ?? 0) >= 0.2 }
    }
    let busy = try Self.check(["--feed-valid-for", "10"], timeout: .seconds(400))
    let stillBusy = loops.allSatisfy { $0.isRunning }
    #expect(stillBusy, "a busy loop ended during the battery")
    #expect(busy.status == 0, "\(busy.stdout)\(busy.stderr)")
    #expect(Self.card(busy.stdout).map { "\($0.outcome) \($0.check)" } == idleCard, "\(busy.stdout)")
  }

  /// A way the demo app misbehaves, and the first check of the battery that must fail on it, with what it says.
  struct Misbehaviour: Sendable, CustomTestStringConvertible {
    var flags: [String]
    var check: String
    var detail: String
    var testDescription: String { flags.joined(separator: " ") }
  }

  static let misbehaviours: [Misbehaviour] = [
    Misbehaviour(
      flags: ["--hang-in", "didEnterBackground"], check: "watchdog didEnterBackground",
      detail: "appWatchdog in didEnterBackground"),
    Misbehaviour(flags: ["--never-end-task"], check: "backgroundTask", detail: "backgroundTaskAssertionTimeout"),
    Misbehaviour(flags: ["--leak", "20"], check: "memoryWarning", detail: "in the 2 s after the warning"),
    Misbehaviour(flags: ["--spin"], check: "backgroundCPU", detail: "cpuResourceLimit"),
    Misbehaviour(flags: ["--crash", "segv"], check: "launch", detail: "badAccess"),
    Misbehaviour(flags: ["--forget-to-save"], check: "restoration", detail: "mismatch"),
    Misbehaviour(flags: ["--forget-to-restore"], check: "restoration", detail: "lost"),
    Misbehaviour(flags: ["--unreported-save"], check: "restoration", detail: "unsaved"),
    Misbehaviour(
      flags: ["--feed-valid-for", "1", "--stale-on-resume"], check: "staleness", detail: "resumption stale"),
    // Its fixed twin is the correct mode, which closes at didEnterBackground and reconnects at willEnterForeground.
    Misbehaviour(
      flags: ["--keep-connection"], check: "sockets", detail: "after its return it said nothing to its server"),
  ]

  /// Each case is a battery on its own jetsamd and device cgroup: the runner runs them side by side.
  @Test("each misbehaviour fails the battery, first at the check that catches it", arguments: misbehaviours)
  func misbehaviourFailsTheRightCheck(_ expected: Misbehaviour) throws {
    let result = try Self.check(expected.flags)
    #expect(result.status == 1, "\(expected.flags): \(result.stdout)\(result.stderr)")
    let firstFailure = Self.card(result.stdout).first { $0.outcome == "FAIL" }
    #expect(firstFailure?.check == expected.check, "\(expected.flags): \(result.stdout)")
    #expect(firstFailure?.detail.contains(expected.detail) == true, "\(expected.flags): \(result.stdout)")
  }
}
