import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The watchdog under a real tracer (`strace -p`, attached as a debugger attaches): held while it is attached (as
/// iOS holds it under a debugger), the kill once it detached; with `underDebugger: "kill"`, the kill while attached.
@Suite(
  "Watchdog under a debugger", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace (make test installs it)"),
  .timeLimit(.minutes(3)), .offThePool)
struct WatchdogDebuggerIntegrationTests {
  /// Watchdog deadlines a fifth of iOS's (didEnterBackground: 1 s); background apps never suspended on their own.
  static func config(_ rule: String) -> String {
    "{ timeScale: \(TestTiming.timeScale(0.2)), suspend: { backgroundGrace: null }, watchdog: { underDebugger: \"\(rule)\" } }"
  }

  /// The tracer of `pid`, from its status (0: none).
  static func tracer(of pid: Int32) -> Int32 {
    (try? ProcessStatus.read(pid: pid))?["TracerPid"].flatMap { Int32($0) } ?? 0
  }

  /// A C app that hangs in didEnterBackground (or, as its fixed twin, answers it), active, with strace attached to
  /// it, sent to the background; the watch stream follows.
  static func hungUnderStrace(_ daemon: DaemonHarness, name: String = "hangs", hangs: Bool = true) throws -> (
    pid: Int32, strace: ChildProcess, watch: ChildProcess
  ) {
    let hang = hangs ? ["--hang-in", "didEnterBackground"] : []
    let pid = try #require(
      try daemon.ctlJSON(AppInfo.self, ["launch", name, "--", Binaries.current.testapp, "speak"] + hang).status.pid)
    try daemon.waitUntil("the app to be active") { try daemon.apps()[name]?.status.state == .foregroundActive }
    let watch = try ChildProcess(Binaries.current.jetsamctl, ["--socket", daemon.socket, "--json", "watch"])
    try daemon.waitUntil("watch's snapshot") { !watch.log.all.isEmpty }
    // SIGTERM back to its default and unblocked first: the test runner ignores and blocks signals, and both survive
    // exec (strace then keeps SIGTERM ignored, and could not be told to detach).
    let strace = try ChildProcess(
      "/usr/bin/python3",
      [
        "-c",
        "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); "
          + "signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
        "/usr/bin/strace", "-p", String(pid), "-o", "/dev/null",
      ])
    try daemon.waitUntil("strace to attach") { tracer(of: pid) == strace.pid }
    try daemon.ctl(["background", name])
    return (pid, strace, watch)
  }

  /// The watch stream's `watchdogHeld` changes so far.
  static func holds(_ watch: ChildProcess) -> [LiveChange] {
    watch.log.all.dropFirst().compactMap { try? JSONDecoder().decode(LiveChange.self, from: Data($0.text.utf8)) }
      .filter { $0.kind == .watchdogHeld }
  }

  @Test("held while strace is attached, killed by the watchdog once it detached")
  func holdsThenKills() throws {
    let daemon = try DaemonHarness(config: Self.config("hold"))
    defer { daemon.stop() }
    let (pid, strace, watch) = try Self.hungUnderStrace(daemon)
    defer { _ = watch.stop(signal: SIGTERM) }
    try daemon.waitUntil("the watchdog held") { Self.holds(watch).first?.tracerPid == strace.pid }
    let held = try #require(Self.holds(watch).first)
    #expect(held.app == "hangs" && held.pid == pid && held.name == "didEnterBackground")
    // Several deadlines (1 s each) pass under the debugger: still alive, nothing recorded.
    try daemon.waitUntil("three deadlines on jetsamd's clock (CLOCK_MONOTONIC, as the stream's)") {
      MonotonicClock.now().nanoseconds - held.monotonicNanoseconds >= 3_000_000_000
    }
    #expect(isAlive(pid) && Self.tracer(of: pid) == strace.pid)
    #expect(try daemon.recordsOnDisk().isEmpty, "no watchdog kill while a debugger is attached")
    // strace detaches at SIGTERM; the deadline runs again from then, and the kill follows.
    #expect(strace.stop(signal: SIGTERM), "strace detaches and ends")
    #expect(isAlive(pid) && Self.tracer(of: pid) == 0)
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    #expect(
      record.pid == pid && record.cause.reason == .appWatchdog && record.evidence.watchdogEvent == "didEnterBackground")
    let released = Self.holds(watch).last
    #expect(released?.tracerPid == nil && released != nil, "the stream said the watchdog runs again")
  }

  @Test("the fixed twin, answering its events under strace, is neither held nor killed")
  func answeringTwin() throws {
    let daemon = try DaemonHarness(config: Self.config("hold"))
    defer { daemon.stop() }
    let (pid, strace, watch) = try Self.hungUnderStrace(daemon, name: "answers", hangs: false)
    defer {
      _ = watch.stop(signal: SIGTERM)
      _ = strace.stop(signal: SIGTERM)
    }
    try daemon.waitUntil("its didEnterBackground acknowledged") {
      watch.log.all.dropFirst().contains { line in
        let change = try? JSONDecoder().decode(LiveChange.self, from: Data(line.text.utf8))
        return change?.kind == .acknowledgement && change?.name == "didEnterBackground"
      }
    }
    #expect(isAlive(pid) && Self.holds(watch).isEmpty)
    #expect(try daemon.recordsOnDisk().isEmpty)
  }

  @Test("underDebugger kill: the watchdog kills the app with strace still attached")
  func killRule() throws {
    let daemon = try DaemonHarness(config: Self.config("kill"))
    defer { daemon.stop() }
    let (pid, strace, watch) = try Self.hungUnderStrace(daemon)
    defer {
      _ = watch.stop(signal: SIGTERM)
      _ = strace.stop(signal: SIGTERM)
    }
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    #expect(record.pid == pid && record.cause.reason == .appWatchdog)
    #expect(Self.holds(watch).isEmpty)
  }
}
