import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Diagnostics of real apps: where a hung handler hung (taken before the watchdog kill), where a spinning app burns
/// its CPU, in MetricKit's layout, kept durably and referred to from the exit record.
@Suite(
  "Diagnostics of real apps", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups and ptraces"),
  .timeLimit(.minutes(3)), .offThePool)
struct DiagnosticsIntegrationTests {
  /// Watchdog deadlines a fifth of iOS's (didEnterBackground: 1 s); background apps never suspended on their own.
  static let config =
    "{ timeScale: \(TestTiming.timeScale(0.2)), suspend: { backgroundGrace: null }, \(captureBudget) }"

  /// A capture budget of 5 s (stretched by the slowdown), not the default 1 s: a capture cut short by a loaded
  /// machine would leave a stack incomplete, and these tests check whole stacks.
  static let captureBudget = "diagnostics: { captureBudget: \"\(Int(5 * TestTiming.slowdown))s\" }"

  /// The diagnostics of `app` as `jetsamctl diagnostics --json` prints them: one payload, checked against the
  /// schema written from MetricKit's documented keys.
  static func payload(_ daemon: DaemonHarness, app: String) throws -> DiagnosticPayload {
    let json = try daemon.ctl(["--json", "diagnostics", "--app", app])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(try SchemaCheck.violations(json.stdout, schema: "metrickit-diagnostic-payloads") == "")
    let payloads = try JSONDecoder().decode([DiagnosticPayload].self, from: Data(json.stdout.utf8))
    #expect(payloads.count == 1)
    return try #require(payloads.first)
  }

  /// Every symbol on the attributed thread's path, innermost first.
  static func attributedSymbols(_ diagnostic: MetricKitDiagnostic, innermostFirst: Bool) -> [String] {
    let path = diagnostic.callStackTree?.attributedPath ?? []
    return (innermostFirst ? path : path.reversed()).compactMap(\.symbol)
  }

  /// Launches `command` as app `hangs` in the foreground, sends it to the background, and returns the watchdog's
  /// record once written.
  static func hangInBackground(_ daemon: DaemonHarness, _ command: [String]) throws -> (pid: Int32, ExitRecord) {
    let pid = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "hangs", "--"] + command).status.pid)
    try daemon.waitUntil("the app to be active") {
      try daemon.apps()["hangs"]?.status.state == .foregroundActive
    }
    // Its didFinishLaunching and didBecomeActive answered (a C app answers at once; the demo app in a moment).
    usleep(UInt32(300_000 * TestTiming.slowdown))
    try daemon.ctl(["background", "hangs"])
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    return (pid, record)
  }

  @Test("a C app hung in didEnterBackground gets a hang diagnostic naming the hung function, before its kill")
  func cHang() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (pid, record) = try Self.hangInBackground(
      daemon, [Binaries.current.testapp, "speak", "--hang-in", "didEnterBackground"])
    #expect(
      record.pid == pid && record.cause.reason == .appWatchdog && record.evidence.watchdogEvent == "didEnterBackground")
    let ids = try #require(record.evidence.diagnostics, "the record refers to its hang diagnostic")
    let payload = try Self.payload(daemon, app: "hangs")
    let hang = try #require(payload.hangDiagnostics?.first)
    #expect(payload.crashDiagnostics == nil && payload.cpuExceptionDiagnostics == nil)
    #expect(hang.hangType == "Main Runloop Hang")
    #expect(hang.diagnosticMetaData.jetsamLifecycleEvent == "didEnterBackground")
    #expect(hang.diagnosticMetaData.pid == pid && hang.diagnosticMetaData.bundleIdentifier == "hangs")
    #expect(hang.diagnosticMetaData.hangDuration?.hasSuffix(" sec") == true)
    #expect(hang.diagnosticMetaData.jetsamCaptureError == nil)
    // The main thread is the attributed one; from its start down to where it sleeps: main → command_speak →
    // handle_event → stuck_in_handler → pause.
    let tree = try #require(hang.callStackTree)
    #expect(tree.callStackPerThread && tree.callStacks.first?.threadAttributed == true)
    #expect(tree.callStacks.first?.jetsamThreadID == pid)
    let symbols = Self.attributedSymbols(hang, innermostFirst: false)
    let stuck = try #require(symbols.firstIndex(of: "stuck_in_handler"), "\(symbols)")
    #expect(symbols[stuck + 1] == "handle_event", "its caller below it: \(symbols)")
    #expect(symbols.contains("main"))
    // Frames name their binary, its build id and the offset into it.
    let frame = try #require(tree.attributedPath.first { $0.symbol == "stuck_in_handler" })
    #expect(frame.binaryName == "jetsam-testapp")
    #expect(frame.binaryUUID?.count == 40, "a GNU build id: 20 bytes in hex")
    #expect(frame.offsetIntoBinaryTextSegment.map { $0 < frame.address } == true)
    // Kept durably under the id the record names.
    #expect(FileManager.default.fileExists(atPath: daemon.stateDirectory + "/diagnostics/\(ids[0]).json"))
  }

  @Test("through the spawner service (jetsamd's sandbox allows no ptrace) the hang's stacks are taken all the same")
  func hangThroughSpawner() throws {
    let spawner = try SpawnerServiceTests.Spawner()
    defer { spawner.stop() }
    let daemon = try DaemonHarness(
      config: "{ timeScale: \(TestTiming.timeScale(0.2)), suspend: { backgroundGrace: null }, "
        + "spawnerSocket: \"\(spawner.socket)\", \(Self.captureBudget) }")
    defer { daemon.stop() }
    let (_, record) = try Self.hangInBackground(
      daemon, [Binaries.current.testapp, "speak", "--hang-in", "didEnterBackground"])
    #expect(record.cause.reason == .appWatchdog && record.evidence.diagnostics?.count == 1)
    let hang = try #require(try Self.payload(daemon, app: "hangs").hangDiagnostics?.first)
    #expect(hang.diagnosticMetaData.jetsamCaptureError == nil)
    #expect(Self.attributedSymbols(hang, innermostFirst: false).contains("stuck_in_handler"))
  }

  @Test("a Swift app hung in didEnterBackground gets a hang diagnostic naming the hung function, demangled")
  func swiftHang() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (_, record) = try Self.hangInBackground(
      daemon, [Binaries.current.demoApp, "--state-dir", daemon.directory, "--hang-in", "didEnterBackground"])
    #expect(record.cause.reason == .appWatchdog && record.evidence.diagnostics?.count == 1)
    let hang = try #require(try Self.payload(daemon, app: "hangs").hangDiagnostics?.first)
    let symbols = Self.attributedSymbols(hang, innermostFirst: true)
    #expect(symbols.contains { $0.contains("Misbehaviour.hang()") }, "\(symbols)")
    #expect(symbols.contains { $0.contains("applicationDidEnterBackground") }, "\(symbols)")
    #expect(!symbols.contains { $0.hasPrefix("$s") }, "Swift symbols are demangled: \(symbols)")
  }

  @Test(
    "an app spinning in the background gets a CPU exception diagnostic whose samples name where it burns",
    arguments: [
      ([Binaries.current.testapp, "spin"], "burn_cpu"),
      // A Python app shows its interpreter's native frames (its Python functions are not on the native stack).
      (
        ["/usr/bin/python3", "-c", "def spin_forever():\n    x = 0\n    while True:\n        x += 1\nspin_forever()"],
        "_PyEval_EvalFrameDefault"
      ),
    ])
  func cpuException(_ command: [String], _ burner: String) throws {
    let daemon = try DaemonHarness(
      config: "{ cpuMonitor: { background: { fatal: { limit: 25, window: \"4s\" }, nonFatal: null } }, "
        + "suspend: { backgroundGrace: null }, \(Self.captureBudget) }")
    defer { daemon.stop() }
    let pid = try #require(
      try daemon.ctlJSON(AppInfo.self, ["launch", "spinner", "--background", "--"] + command).status.pid)
    let record = try #require(try daemon.waitForRecords(1, timeout: 30).first)
    #expect(record.cause.reason == .cpuResourceLimit && record.pid == pid)
    #expect(record.evidence.diagnostics?.count == 1, "the record refers to its CPU exception, taken before the kill")
    let exception = try #require(try Self.payload(daemon, app: "spinner").cpuExceptionDiagnostics?.first)
    let meta = exception.diagnosticMetaData
    #expect(meta.totalCPUTime?.hasSuffix(" sec") == true && meta.totalSampledTime?.hasSuffix(" sec") == true)
    #expect(meta.jetsamCPULimitPercent == 25 && meta.jetsamAppState == "background")
    #expect(meta.jetsamCPUFatal == true && meta.jetsamCPUSummary == record.evidence.cpuUsage?.summary)
    #expect(meta.jetsamCPUSummary?.hasSuffix("exceeding limit of 25% cpu over 4 seconds") == true)
    #expect((meta.jetsamSamples ?? 0) >= 2)
    let tree = try #require(exception.callStackTree)
    #expect(!tree.callStackPerThread && tree.callStacks.count == 1 && tree.callStacks[0].threadAttributed == nil)
    // Every sample went through where it burns (at one address or another of it: the loop has several
    // instructions, and frames are merged by address, as MetricKit's are).
    #expect(Self.samples(through: burner, in: tree.callStacks[0].callStackRootFrames) == meta.jetsamSamples)
    #expect(tree.attributedPath.first?.sampleCount == meta.jetsamSamples, "the thread's start is in every sample")
  }

  @Test(
    "a segfault and a Swift trap get crash diagnostics naming the faulting function, before the exit is recorded",
    arguments: [
      (
        [Binaries.current.testapp, "crash", "segv"], ExitReason.badAccess, Int32(SIGSEGV),
        "crash_segv", "command_crash"
      ),
      (
        [Binaries.current.demoApp, "--state-dir", "/tmp", "--crash", "swift-trap"], .illegalInstruction, SIGILL,
        "Misbehaviour.indexPastTheEnd", "Misbehaviour.crash"
      ),
    ])
  func crash(_ command: [String], _ reason: ExitReason, _ signal: Int32, _ faulting: String, _ caller: String) throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let pid = try #require(try daemon.ctlJSON(AppInfo.self, ["launch", "crasher", "--"] + command).status.pid)
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    #expect(record.pid == pid && record.cause.reason == reason && record.cause.signal == signal)
    #expect(record.evidence.diagnostics?.count == 1, "the record refers to its crash diagnostic")
    let crash = try #require(try Self.payload(daemon, app: "crasher").crashDiagnostics?.first)
    let meta = crash.diagnosticMetaData
    #expect(meta.signal == signal && meta.pid == pid && meta.jetsamCaptureError == nil)
    #expect(meta.terminationReason?.hasPrefix("Namespace SIGNAL, Code \(signal)") == true)
    #expect(meta.exceptionType == (signal == SIGSEGV ? 1 : 2))
    if signal == SIGSEGV { #expect(meta.virtualMemoryRegionInfo == "0x0 is not in any region") }
    // The faulting thread's stack starts where it faulted (jetsam's crash handler and the signal frame are left
    // out), its callers below.
    let tree = try #require(crash.callStackTree)
    #expect(tree.callStackPerThread && tree.callStacks.first?.threadAttributed == true)
    let symbols = Self.attributedSymbols(crash, innermostFirst: true)
    let at = try #require(symbols.firstIndex { $0.contains(faulting) }, "\(symbols)")
    #expect(symbols.dropFirst(at + 1).contains { $0.contains(caller) }, "\(symbols)")
    #expect(!symbols.contains { $0.contains("on_fatal_signal") || $0 == "__restore_rt" }, "\(symbols)")
    if signal == SIGSEGV { #expect(at == 0, "the faulting function is the root frame: \(symbols)") }
  }

  @Test(
    "a SIGSEGV sent to a program exec'd by shells, env or bash first (as a pyenv shim starts python3), is its crash",
    arguments: [["/usr/bin/env", "bash", "-c"], ["/bin/bash", "-c"]])
  func crashAfterShellExecs(first: [String]) throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    // One process all along: env or bash, then bash (again), then the program, each exec'ing the next. bash exports
    // an environment of its own, so a crash socket moved in any of them left the program a variable naming no
    // socket, and no handler: the signal was the Swift runtime's to print, and it survived it. With bash first, the
    // very first move (from a low descriptor jetsamd used to hand over) was lost that way.
    let program = "exec bash -c 'exec \(Binaries.current.testapp) idle'"
    let pid = try #require(
      try daemon.ctlJSON(AppInfo.self, ["launch", "shimmed", "--"] + first + [program]).status.pid)
    // The program's name is there from early in its exec, its handler only once the preloaded library's constructor
    // has run: a signal sent in between finds another. The kernel names the program before it resets the handlers
    // (begin_new_exec), so for a moment SigCgt is still the shell's (jetsam's handler in the shell: the signal stays
    // pending, then kills the program with no report); and a Swift runtime's constructor runs before the preloaded
    // library's, so its handler (which swallows a sent signal) would come first, were jetsamd not turning it off.
    // So, read in this order: the name (the shells are done), the library mapped (the loader of this image has
    // run: the handlers were reset before), then SIGTRAP caught, the last signal the constructor takes.
    try daemon.waitUntil("the program to run, exec'd by the shells, with jetsam's crash handler") {
      (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == "jetsam-testapp\n"
        && ((try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8))?.contains("libjetsam-crash.so") ?? false)
        && Self.catches(pid: pid, SIGTRAP) && Self.catches(pid: pid, SIGSEGV)
    }
    let environment = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
    #expect(
      environment.split(separator: 0).contains(Data("SWIFT_BACKTRACE=enable=no".utf8)),
      "jetsamd turns the Swift runtime's crash handler off in apps it preloads the reporter into")
    #expect(kill(pid, SIGSEGV) == 0)
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    #expect(record.pid == pid && record.cause.reason == .badAccess && record.cause.signal == SIGSEGV, "\(record)")
    #expect(record.evidence.diagnostics?.count == 1, "jetsam's crash handler reported it")
  }

  /// Whether process `pid` has a handler for `signal` (its `SigCgt` mask in /proc/PID/status).
  static func catches(pid: Int32, _ signal: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
      let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << UInt64(signal - 1)) != 0
  }

  @Test("a capture that cannot attach says why in the diagnostic, and the kill still goes out")
  func captureRefused() throws {
    // Under a debugger the watchdog holds by default (as iOS's does): here the kill rule makes it fire.
    let daemon = try DaemonHarness(
      config:
        "{ timeScale: \(TestTiming.timeScale(0.2)), suspend: { backgroundGrace: null }, \(Self.captureBudget), "
        + "watchdog: { underDebugger: \"kill\" } }")
    defer { daemon.stop() }
    let pid = try #require(
      try daemon.ctlJSON(
        AppInfo.self, ["launch", "hangs", "--", Binaries.current.testapp, "speak", "--hang-in", "didEnterBackground"]
      ).status.pid)
    try daemon.waitUntil("the app to be active") {
      try daemon.apps()["hangs"]?.status.state == .foregroundActive
    }
    // A debugger of its own: a process that holds the ptrace attachment (PTRACE_SEIZE, 0x4206, which does not
    // stop the app), so that jetsam-stack cannot take it.
    let tracer = try ChildProcess(
      "/usr/bin/python3",
      [
        "-c",
        "import ctypes, sys, time; libc = ctypes.CDLL(None, use_errno=True); "
          + "sys.exit(1) if libc.ptrace(0x4206, int(sys.argv[1]), 0, 0) != 0 else time.sleep(120)",
        String(pid),
      ])
    defer { _ = tracer.stop(signal: SIGKILL) }
    try daemon.waitUntil("strace to attach") { Self.tracer(of: pid) != 0 }
    try daemon.ctl(["background", "hangs"])
    try daemon.waitUntil("the hang diagnostic") {
      !(try daemon.ctlJSON([DiagnosticPayload].self, ["diagnostics"]).isEmpty)
    }
    // The SIGKILL went out all the same; the dead app's status goes to its tracer first, so the record follows once
    // the tracer is gone (as it would after a debugger detached).
    try daemon.waitUntil("the app to die") { processState(pid: pid) == "Z" || !isAlive(pid) }
    // Meanwhile jetsamd neither spins on the dead app's ready pidfd nor stops answering.
    let cpuBefore = try #require(cpuSeconds(of: daemon.pid))
    Thread.sleep(forTimeInterval: 1)
    #expect(try daemon.ctl(["status"]).status == 0)
    #expect((cpuSeconds(of: daemon.pid) ?? 0) - cpuBefore < 0.5, "jetsamd kept a core busy")
    _ = tracer.stop(signal: SIGKILL)
    let record = try #require(try daemon.waitForRecords(1, timeout: 20).first)
    #expect(record.cause.reason == .appWatchdog && !isAlive(pid))
    let hang = try #require(try Self.payload(daemon, app: "hangs").hangDiagnostics?.first)
    #expect(hang.callStackTree == nil)
    let problem = try #require(hang.diagnosticMetaData.jetsamCaptureError)
    #expect(problem.contains("not permitted") || problem.contains("debugger"), "\(problem)")
  }

  /// How many samples went through a frame named `symbol` (the outermost such frame of each path, so that
  /// recursion is not counted twice).
  static func samples(through symbol: String, in frames: [CallStackFrame]) -> Int {
    frames.reduce(0) { total, frame in
      total + (frame.symbol == symbol ? frame.sampleCount : samples(through: symbol, in: frame.subFrames ?? []))
    }
  }

  /// The TracerPid of `pid` (0: none).
  static func tracer(of pid: Int32) -> Int32 {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") } ?? ""
    return Int32(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
  }
}
