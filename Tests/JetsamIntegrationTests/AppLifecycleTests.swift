import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Real apps on their channel (PROTOCOL.md): the events they receive, the watchdog, background tasks, memory
/// warnings, launch reasons.
@Suite(
  "App lifecycle over the channel", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct AppLifecycleTests {
  static let bashApp = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/lifecycle-app.sh"

  /// A daemon whose watchdog and background-task rules run ten times faster than iOS's.
  static func fastDaemon(grace: String = "null", extra: String = "") throws -> DaemonHarness {
    try DaemonHarness(
      config: "{ timeScale: \(TestTiming.timeScale(0.1)), suspend: { backgroundGrace: \(grace) }, \(extra) }")
  }

  /// Launches the bash test app with these environment variables; returns its pid and its events file.
  static func launchBashApp(
    _ daemon: DaemonHarness, _ name: String, _ env: [String: String] = [:], options: [String] = []
  )
    throws -> (pid: Int32, events: String)
  {
    let events = daemon.directory + "/\(name).events"
    let envOptions = (["EVENTS_FILE": events].merging(env) { $1 }).sorted { $0.key < $1.key }.flatMap {
      ["--env", "\($0.key)=\($0.value)"]
    }
    let pid = try daemon.launch(name, [], options: envOptions + options, executable: bashApp)
    return (pid, events)
  }

  /// The event names in an events file (first word of each line).
  static func events(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map {
      String($0.split(separator: " ").first ?? "")
    }
  }

  static func lines(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  @Test("launch → foreground → background → suspended → resumed → foreground: the exact events")
  func eventSequence() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (pid, events) = try Self.launchBashApp(daemon, "app")
    try daemon.waitUntil("didBecomeActive") { Self.events(events).contains("didBecomeActive") }
    #expect(try daemon.ctl(["background", "app"]).status == 0)
    try daemon.waitUntil("didEnterBackground") { Self.events(events).contains("didEnterBackground") }
    #expect(try daemon.ctl(["suspend", "app"]).status == 0)
    #expect(processState(pid: pid) == "T")
    #expect(try daemon.ctl(["resume", "app"]).status == 0)
    #expect(try daemon.ctl(["activate", "app"]).status == 0)
    try daemon.waitUntil("the second didBecomeActive") {
      Self.events(events).filter { $0 == "didBecomeActive" }.count == 2
    }
    #expect(
      Self.events(events) == [
        "launch", "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
        "willEnterForeground", "didBecomeActive",
      ])
    #expect(Self.lines(events)[1].contains("reason=fresh"))
  }

  @Test("a hang in didEnterBackground is killed at the deadline with appWatchdog")
  func hangInBackground() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (pid, events) = try Self.launchBashApp(daemon, "hangs", ["HANG_IN": "didEnterBackground"])
    try daemon.waitUntil("didBecomeActive") { Self.events(events).contains("didBecomeActive") }
    let start = Date()
    #expect(try daemon.ctl(["background", "hangs"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    let elapsed = Date().timeIntervalSince(start)
    #expect(record.pid == pid)
    #expect(record.cause.reason == .appWatchdog)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0x8badf00d")
    #expect(record.evidence.watchdogEvent == "didEnterBackground")
    #expect(record.lifecycle.state == .background)
    #expect(elapsed >= 0.45 && elapsed < 5, "the 5 s deadline scaled by 0.1 (took \(elapsed) s)")
    #expect(!isAlive(pid))
    let table = try daemon.ctl(["exits"]).stdout
    #expect(table.contains("DETAIL") && table.contains("in didEnterBackground "), "\(table)")
  }

  /// A hang in one handler of a transition that sends several events, and what the record must say.
  struct HandlerHang: Sendable, CustomTestStringConvertible {
    /// The event whose handler never returns, and its deadline on iOS's clock.
    var event: String
    var deadline: Double
    /// The handler before it in the same transition, and how long (on iOS's clock) the app spends there first.
    var slowIn: String?
    var slowSeconds: Double = 0
    /// Launched to the background (then activated) rather than to the foreground (then backgrounded).
    var background = false
    var testDescription: String { slowIn.map { "\(event) after \(slowSeconds) s in \($0)" } ?? event }
  }

  static let handlerHangs = [
    // A foreground launch: didFinishLaunching (20 s), then didBecomeActive (10 s).
    HandlerHang(event: "didFinishLaunching", deadline: 20),
    // To the background: willResignActive (10 s; 6 s spent in it is legal), then didEnterBackground (5 s).
    HandlerHang(event: "willResignActive", deadline: 10),
    HandlerHang(event: "didEnterBackground", deadline: 5, slowIn: "willResignActive", slowSeconds: 6),
    // To the foreground: willEnterForeground (10 s), then didBecomeActive (10 s).
    HandlerHang(event: "willEnterForeground", deadline: 10, background: true),
    HandlerHang(
      event: "didBecomeActive", deadline: 10, slowIn: "willEnterForeground", slowSeconds: 3, background: true),
  ]

  @Test(
    "handlers run one after another: a hang is killed at its own event's deadline and blamed on it",
    arguments: handlerHangs)
  func handlerHang(_ hang: HandlerHang) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    var env = ["HANG_IN": hang.event]
    if let slowIn = hang.slowIn { env["SLOW_IN"] = "\(slowIn):\(hang.slowSeconds * Self.scale)" }
    var events = ""
    try Self.expectKilledInItsHandler(daemon, hang) {
      let launched = try Self.launchBashApp(daemon, "hangs", env, options: hang.background ? ["--background"] : [])
      events = launched.events
      return launched.pid
    } settled: {
      Self.events(events).contains(hang.background ? "didFinishLaunching" : "didBecomeActive")
    }
  }

  @Test(
    "the Swift and Python clients run handlers in order too: a hang is blamed on its own event",
    arguments: ["swift", "python"],
    handlerHangs.map { HandlerHang(event: $0.event, deadline: $0.deadline, background: $0.background) })
  func clientHandlerHang(_ client: String, _ hang: HandlerHang) throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let command =
      client == "swift"
      ? [Binaries.current.demoApp, "--state-dir", daemon.directory, "--hang-in", hang.event]
      : ["/usr/bin/python3", Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/hanging_app.py"]
    let options = (hang.background ? ["--background"] : []) + ["--env", "HANG_IN=\(hang.event)"]
    try Self.expectKilledInItsHandler(daemon, hang) {
      try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "hangs"] + options + ["--"] + command).status.pid)
    } settled: {
      // Nothing to see from outside: the blame does not depend on it (the watchdog follows the app's own
      // acknowledgements), only the time measured from the request does.
      usleep(UInt32(300_000 * TestTiming.slowdown))
      return true
    }
  }

  /// The lifecycle time scale of ``fastDaemon(grace:extra:)``.
  static let scale = Double(TestTiming.timeScale(0.1))!

  /// Launches the app (`launch` returns its pid); unless it hangs at launch, waits until `settled` and sends it
  /// the request of `hang`'s transition; then expects its watchdog record: its own event, its whole allowance,
  /// not before its own deadline.
  static func expectKilledInItsHandler(
    _ daemon: DaemonHarness, _ hang: HandlerHang, launch: () throws -> Int32, settled: () throws -> Bool
  ) throws {
    var start = Date()
    let pid = try launch()
    if hang.event != "didFinishLaunching" {
      try daemon.waitUntil("launched", settled)
      usleep(100_000)
      start = Date()
      #expect(try daemon.ctl([hang.background ? "activate" : "background", "hangs"]).status == 0)
    }
    let record = try #require(try daemon.waitForRecords(1, timeout: 10).first)
    // On iOS's clock, from the request that sent the events.
    let elapsed = Date().timeIntervalSince(start) / scale
    #expect(record.pid == pid)
    #expect(record.cause.reason == .appWatchdog)
    #expect(record.evidence.watchdogEvent == hang.event)
    let inHandler = (record.evidence.watchdogSeconds ?? 0) / scale
    // Its whole deadline, not less; a late deadline timer (a loaded machine) may add a little, but less than the
    // time any earlier handler took (3 s at least), which a deadline counted from the wrong event would add.
    #expect(
      inHandler > hang.deadline - 0.5 && inHandler < hang.deadline + 2.5,
      "in \(hang.event) for its whole \(hang.deadline) s (\(inHandler) s)")
    #expect(
      elapsed >= hang.slowSeconds + hang.deadline - 0.5,
      "killed at its own deadline, not before (\(elapsed) s of iOS's clock)")
  }

  @Test("launch --acknowledgements always watches an app from launch: a hang before its first line is killed")
  func watchedFromLaunch() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    // A program that never writes a line: under auto (the default) it is never watched.
    let (quiet, _) = try Self.launchBashApp(daemon, "quiet", ["SILENT": "1"], options: ["--background"])
    let (hung, _) = try Self.launchBashApp(
      daemon, "hung", ["SILENT": "1"], options: ["--background", "--acknowledgements", "always"])
    let record = try #require(try daemon.waitForRecords(1, timeout: 10).first)
    #expect(record.app == "hung" && record.pid == hung)
    #expect(record.cause.reason == .appWatchdog)
    #expect(record.evidence.watchdogEvent == "didFinishLaunching")
    #expect(record.cause.endedBy == .jetsam)
    #expect(try daemon.jetsamKills(once: 1) == [.appWatchdog: 1])
    #expect(try daemon.apps()["quiet"]?.status.pid == quiet, "auto does not watch a program that never spoke")
    let bad = try daemon.ctl(["launch", "x", "--acknowledgements", "sometimes", "--", "/bin/true"])
    #expect(bad.status == 64 && bad.stderr.contains("--acknowledgements: \"sometimes\" is not a mode"))
  }

  @Test("a never-ended background task gets backgroundTaskWillExpire, then backgroundTaskAssertionTimeout")
  func neverEndedTask() throws {
    let daemon = try Self.fastDaemon(grace: "\"100ms\"")
    defer { daemon.stop() }
    let (pid, events) = try Self.launchBashApp(daemon, "uploader", ["TASK": "upload", "END_TASK": "never"])
    try daemon.waitUntil("didBecomeActive") { Self.events(events).contains("didBecomeActive") }
    #expect(try daemon.ctl(["background", "uploader"]).status == 0)
    try daemon.waitUntil("the task to begin") { Self.events(events).contains("task") }
    usleep(500_000)
    #expect(try daemon.apps()["uploader"]?.status.state.coarse == .background, "a task keeps it from being suspended")
    #expect(processState(pid: pid) != "T")
    let record = try #require(try daemon.waitForRecords(1, timeout: 10).first)
    #expect(record.cause.reason == .backgroundTaskAssertionTimeout)
    #expect(record.cause.terminationReason == "RUNNINGBOARD 0x2182bad2")
    #expect(record.cause.endedBy == .jetsam)
    #expect(try daemon.jetsamKills(once: 1) == [.backgroundTaskAssertionTimeout: 1])
    #expect(record.evidence.openBackgroundTasks == ["upload"])
    #expect(try daemon.ctl(["exits"]).stdout.contains("open tasks: upload"))
    let seen = Self.events(events)
    #expect(seen.contains("backgroundTaskWillExpire"), "warned first: \(seen)")
    #expect(Self.lines(events).contains { $0.hasPrefix("backgroundTaskWillExpire") && $0.contains("taskName=upload") })
  }

  @Test("an ended task lets the app be suspended")
  func endedTask() throws {
    let daemon = try Self.fastDaemon(grace: "\"200ms\"")
    defer { daemon.stop() }
    let (pid, events) = try Self.launchBashApp(daemon, "saver", ["TASK": "save", "END_TASK": "0.5"])
    try daemon.waitUntil("didBecomeActive") { Self.events(events).contains("didBecomeActive") }
    #expect(try daemon.ctl(["background", "saver"]).status == 0)
    try daemon.waitUntil("the task to begin") { Self.events(events).contains("task") }
    // Seen stopped, not only told to stop (`stopping` until every process is seen stopped).
    try daemon.waitUntil("suspension after the task ended") {
      let app = try daemon.apps()["saver"]
      return app?.status.state.coarse == .suspended && app?.measured.stopping != true
    }
    #expect(processState(pid: pid) == "T")
    #expect(try daemon.recordsOnDisk().isEmpty)
  }

  @Test("a memory warning reaches running apps before any jetsam kill")
  func memoryWarningFirst() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (_, suspendedEvents) = try Self.launchBashApp(daemon, "sleeper")
    try daemon.waitUntil("sleeper launched") { Self.events(suspendedEvents).contains("didBecomeActive") }
    let (_, events) = try Self.launchBashApp(daemon, "active")
    try daemon.waitUntil("active launched") { Self.events(events).contains("didBecomeActive") }
    #expect(try daemon.ctl(["suspend", "sleeper"]).status == 0)
    #expect(try daemon.ctl(["pressure", "set", "urgent"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "sleeper")
    #expect(record.cause.reason == .memoryPressure)
    try daemon.waitUntil("the warning") { Self.events(events).contains("memoryWarning") }
    #expect(Self.lines(events).contains { $0.hasPrefix("memoryWarning") && $0.contains("level=urgent") })
    #expect(!Self.events(suspendedEvents).contains("memoryWarning"), "a suspended app gets no warning")
    // The warning was sent before the kill: the daemon's log shows the order.
    let log = daemon.log
    let warned = try #require(log.range(of: "name=memoryWarning")?.lowerBound)
    let killed = try #require(log.range(of: "killing sleeper")?.lowerBound)
    #expect(warned < killed)
  }

  @Test("launch reasons: fresh, after a jetsam kill (with the summary), after a crash")
  func launchReasons() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (_, events) = try Self.launchBashApp(daemon, "notes")
    try daemon.waitUntil("launched") { Self.events(events).contains("didBecomeActive") }
    #expect(Self.lines(events)[0].hasPrefix("launch fresh"))
    #expect(try daemon.ctl(["background", "notes"]).status == 0)
    try daemon.waitUntil("didEnterBackground") { Self.events(events).contains("didEnterBackground") }
    try daemon.waitUntil("the summary it sends there") { try daemon.apps()["notes"]?.status.summary != nil }
    #expect(try daemon.ctl(["suspend", "notes"]).status == 0)
    #expect(try daemon.ctl(["kill", "notes"]).status == 0)  // memoryPressure by default
    let first = try #require(try daemon.waitForRecords(1).first)
    #expect(first.savedState.summary?.hasPrefix("seen ") == true)

    #expect(try daemon.ctl(["activate", "notes"]).status == 0)
    try daemon.waitUntil("the relaunch") { Self.lines(events).filter { $0.hasPrefix("launch") }.count == 2 }
    let relaunch = try #require(Self.lines(events).last { $0.hasPrefix("launch") })
    #expect(relaunch.contains("afterExit reason=memoryPressure state=suspended"), "\(relaunch)")
    #expect(relaunch.contains("summary=seen%20"), "\(relaunch)")
    try daemon.waitUntil("didFinishLaunching of the relaunch") {
      Self.events(events).filter { $0 == "didFinishLaunching" }.count == 2
    }
    let finish = try #require(Self.lines(events).last { $0.hasPrefix("didFinishLaunching") })
    #expect(finish.contains("reason=afterExit previousReason=memoryPressure previousState=suspended"), "\(finish)")

    // A crash: the next launch says so.
    try daemon.launch("crasher", ["crash", "segv"])
    _ = try daemon.waitForRecords(2)
    #expect(
      try daemon.ctl([
        "launch", "crasher", "--env", "EVENTS_FILE=\(daemon.directory)/crasher.events", "--", Self.bashApp,
      ]).status == 0)
    try daemon.waitUntil("the crasher's relaunch") { !Self.lines(daemon.directory + "/crasher.events").isEmpty }
    #expect(Self.lines(daemon.directory + "/crasher.events")[0].contains("afterExit reason=badAccess state=foreground"))
  }

  @Test("a forged line on one app's channel cannot affect another app, and garbage harms nobody")
  func forgedAndGarbage() throws {
    let daemon = try Self.fastDaemon()
    defer { daemon.stop() }
    let (victim, victimEvents) = try Self.launchBashApp(daemon, "victim", ["HANG_IN": "didEnterBackground"])
    try daemon.waitUntil("victim launched") { Self.events(victimEvents).contains("didBecomeActive") }
    // The forger tries to acknowledge the victim's events and end its tasks, then sends garbage.
    let forger = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/forger-app.sh"
    #expect(
      try daemon.ctl(["launch", "forger", "--background", "--env", "OUT=\(daemon.directory)/forger.out", "--", forger])
        .status == 0)
    try daemon.waitUntil("the forger's error replies") {
      let out = Self.lines(daemon.directory + "/forger.out")
      return out.contains { $0.contains("code=unknownTask") } && out.contains { $0.contains("code=tooLarge") }
        && out.contains { $0.contains("code=tooLong") } && out.contains { $0.contains("code=badLine") }
    }
    // The victim still hangs in didEnterBackground: nobody else's acknowledgement saved it.
    #expect(try daemon.ctl(["background", "victim"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.app == "victim")
    #expect(record.pid == victim)
    #expect(record.cause.reason == .appWatchdog)
    #expect(try daemon.ctl(["status"]).status == 0, "the daemon is unharmed")
    #expect(try daemon.apps()["forger"]?.status.pid != nil)
  }

  @Test("a program that does not speak is never watched; a command hook answers for it, within its timeout")
  func hooks() throws {
    let marker = "/tmp/jetsam-hook-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { unlink(marker) }
    let daemon = try Self.fastDaemon(
      extra: """
        apps: {
          quiet: { command: ["\(Binaries.current.testapp)", "idle"] },
          saving: { command: ["\(Binaries.current.testapp)", "idle"],
                    hooks: { didEnterBackground: { command: ["/bin/sh", "-c", "echo saved > \(marker)"] } } },
          stuck: { command: ["\(Binaries.current.testapp)", "idle"],
                   hooks: { didEnterBackground: { command: ["/bin/sleep", "100"], timeout: "300ms" } } },
        }
        """)
    defer { daemon.stop() }
    for name in ["quiet", "saving", "stuck"] { #expect(try daemon.ctl(["launch", name]).status == 0) }
    // Launching each pushed the previous one to the background: saving's hook ran then.
    #expect(try daemon.ctl(["background", "stuck"]).status == 0)
    let stuck = try #require(try daemon.waitForRecords(1).first { $0.app == "stuck" })
    #expect(stuck.cause.reason == .appWatchdog)
    #expect(stuck.evidence.watchdogEvent == "didEnterBackground")
    #expect((try? String(contentsOfFile: marker, encoding: .utf8)) == "saved\n")
    usleep(1_500_000)  // well past every deadline
    let apps = try daemon.apps()
    #expect(apps["quiet"]?.status.pid != nil, "a silent program is not killed for not answering")
    #expect(apps["saving"]?.status.pid != nil)
  }
}
