import Foundation
import FoundationXML
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// `jetsam-lab run`: scenarios against a private jetsamd on real processes, their JUnit XML, summary, trace and
/// HTML report (the page checked in a real headless Chromium).
@Suite(
  "Labs", .serialized, .enabled(if: isRoot, "needs root: a lab's jetsamd creates cgroups"), .timeLimit(.minutes(5)),
  .offThePool)
struct LabTests {
  static let labs = Binaries.packageRoot + "/labs/"

  /// Runs jetsam-lab on `scenario`, its reports in a new directory (removed by the caller with `cleanup`).
  static func run(_ scenario: String, _ extra: [String] = []) throws -> (result: CommandResult, reports: String) {
    let reports = NSTemporaryDirectory() + "jetsam-lab-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let result = try runCommand(
      Binaries.current.directory + "/jetsam-lab",
      ["run", scenario, "--output", reports, "--profiles", Binaries.packageRoot + "/config/profiles"] + extra,
      timeout: .seconds(240))
    return (result, reports)
  }

  /// The test cases of a JUnit file: name → failure message (nil when it passed).
  static func junitCases(_ path: String) throws -> [String: String?] {
    let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path))
    var cases: [String: String?] = [:]
    for node in try document.nodes(forXPath: "//testcase") {
      guard let element = node as? XMLElement, let name = element.attribute(forName: "name")?.stringValue else {
        continue
      }
      let failure = element.elements(forName: "failure").first ?? element.elements(forName: "error").first
      // updateValue: assigning nil through the subscript would remove the passed case.
      cases.updateValue(failure.map { $0.attribute(forName: "message")?.stringValue ?? "" }, forKey: name)
    }
    return cases
  }

  static func summary(_ reports: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: reports + "/summary.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test("the restoration lab passes: the demo app's save, its kill while suspended, its relaunch's verdict")
  func restorationLab() throws {
    let (result, reports) = try Self.run(Self.labs + "restoration.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("jetsam-lab: reports in \(reports)"))
    let cases = try Self.junitCases(reports + "/junit.xml")
    #expect(cases.count == 7)
    #expect(cases.values.allSatisfy { $0 == nil }, "\(cases)")
    #expect(cases.keys.contains("steps[11] expect restoration of notes is match"))
    let summary = try Self.summary(reports)
    #expect(summary["passed"] as? Bool == true)
    let exits = try #require(summary["exits"] as? [[String: Any]])
    #expect(exits.map { "\($0["app"]!) \($0["reason"]!) \($0["state"]!)" } == ["notes memoryPressure suspended"])
    let verdicts = try #require(summary["verdicts"] as? [[String: Any]])
    #expect(verdicts.map { "\($0["app"]!) \($0["launch"]!) \($0["verdict"]!)" } == ["notes 2 match"])
    // The daemon is gone with its cgroups: nothing of the run is left running.
    #expect(!FileManager.default.fileExists(atPath: reports + "/jetsamd/run/jetsamd.sock"))
  }

  /// Whether the machine has `bytes` of memory available (MemAvailable).
  static func memoryAvailable(_ bytes: Int64) -> Bool {
    guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
      let kib = Int64(line.split(separator: " ")[1])
    else { return false }
    return kib * 1024 >= bytes
  }

  @Test(
    "the commute lab passes: a dozen apps on a 2 GB phone, the longest-suspended killed first, notes restored",
    .enabled(if: memoryAvailable(4 << 30), "needs 4 GiB available: its apps charge 1.9 GB of real memory"))
  func commuteLab() throws {
    let (result, reports) = try Self.run(Self.labs + "commute.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let cases = try Self.junitCases(reports + "/junit.xml")
    #expect(cases.count == 19 && cases.values.allSatisfy { $0 == nil }, "\(cases)")
    let summary = try Self.summary(reports)
    let exits = try #require(summary["exits"] as? [[String: Any]])
    #expect(
      exits.prefix(2).map { "\($0["app"]!) \($0["reason"]!) \($0["state"]!)" } == [
        "notes memoryPressure suspended", "mail memoryPressure suspended",
      ])
    #expect(!exits.contains { ["music", "camera"].contains($0["app"] as? String) })
  }

  @Test(
    "the soak lab, shortened to 20 s, passes: chaos on a 2 GB phone with no unexpected exit",
    .enabled(if: memoryAvailable(4 << 30), "needs 4 GiB available: its apps charge up to 2 GB of real memory"))
  func soakLabShortened() throws {
    let (result, reports) = try Self.run(Self.labs + "soak.json5", ["--duration", "20s", "--seed", "3"])
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let cases = try Self.junitCases(reports + "/junit.xml")
    #expect(Set(cases.keys).isSuperset(of: ["chaos.exits every exit was jetsam's or asked for by the chaos"]))
    #expect(cases.values.allSatisfy { $0 == nil }, "\(cases)")
    let plan = try Self.chaosPlan(reports)
    #expect(plan.seed == 3 && plan.actions.count >= 4, "\(plan.actions)")
  }

  @Test(
    "the fleet lab, shortened to 15 s: two hundred apps launched and suspended, the runner's costs reported",
    .enabled(if: memoryAvailable(5 << 30), "needs 5 GiB available: its 200 apps hold 2.4 GB of real memory"))
  func fleetLabShortened() throws {
    let (result, reports) = try Self.run(Self.labs + "fleet.json5", ["--duration", "15s", "--seed", "1"])
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stdout.contains("jetsam-lab: jetsam-lab used ") && result.stdout.contains("jetsam-lab: jetsamd used "))
    let summary = try Self.summary(reports)
    let steps = try #require(summary["steps"] as? [[String: Any]])
    #expect(steps.first?["title"] as? String == "launch app1 … app200 (200 apps) in the background")
    #expect(steps.allSatisfy { $0["outcome"] as? String == "passed" }, "\(steps)")
    let resources = try #require(summary["resources"] as? [String: [String: Double]])
    #expect(resources["runner"]?["peakRSSBytes"] ?? 0 > 0 && resources["daemon"]?["cpuSeconds"] ?? 0 > 0)
    #expect(try TraceFile(contentsOf: reports + "/trace.json").processIDs.count == 201)
  }

  /// A short, busy chaos session: switches, spikes, wakes and kills within seconds.
  static let chaosScenario = """
    {
      apps: {
        notes: { command: ["jetsam-demo-app"], acknowledgements: "always" },
        mail: { command: ["jetsam-testapp", "alloc", "40", "--hold"] },
        news: { command: ["jetsam-testapp", "alloc", "60", "--hold"] },
        maps: { command: ["jetsam-testapp", "alloc", "80", "--hold"] },
      },
      config: { suspend: { backgroundGrace: "500ms" } },
      chaos: {
        duration: "8s",
        usage: { dwell: ["300ms", "900ms"], weights: { notes: 2 }, home: 0.2 },
        spikes: { every: "2s", size: ["100M", "300M"], for: ["200ms", "600ms"] },
        wakes: { every: "2s", apps: 2 },
        kills: { every: "2s", reasons: ["memoryPressure", "appWatchdog"] },
      },
    }
    """

  /// The planned actions of a run's chaos session, as `at title` lines.
  static func chaosPlan(_ reports: String) throws -> (seed: Int, actions: [String]) {
    let chaos = try #require(try summary(reports)["chaos"] as? [String: Any])
    let actions = try #require(chaos["actions"] as? [[String: Any]]).map { action in
      let planned = action["planned"] as? [String: Any] ?? [:]
      return "\(planned["at"] ?? "?") \(planned["kind"] ?? "?") \(planned["apps"] ?? "") \(planned["size"] ?? "") "
        + "\(planned["reason"] ?? "")"
    }
    return (chaos["seed"] as? Int ?? -1, actions)
  }

  @Test("a chaos session with the same seed issues the same actions; another seed, others; a failure prints its replay")
  func chaosIsReproducible() throws {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let scenario = directory + "/chaos.json5"
    try Self.chaosScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
    var plans: [[String]] = []
    for seed in ["7", "7", "8"] {
      let (result, reports) = try Self.run(scenario, ["--seed", seed])
      defer { try? FileManager.default.removeItem(atPath: reports) }
      #expect(result.status == 0, "\(result.stdout)")
      #expect(result.stdout.contains("chaos session, seed \(seed)"))
      let plan = try Self.chaosPlan(reports)
      #expect(plan.seed == Int(seed))
      #expect(plan.actions.count > 10, "\(plan.actions)")
      plans.append(plan.actions)
      // The session did what it planned: kills and switches reached jetsamd.
      let exits = try #require(try Self.summary(reports)["exits"] as? [[String: Any]])
      #expect(!exits.isEmpty)
    }
    #expect(plans[0] == plans[1])
    #expect(plans[0] != plans[2])

    // An app that crashes is an exit the chaos did not ask for: the run fails and says how to replay it.
    let crashing = Self.chaosScenario.replacingOccurrences(
      of: #"mail: { command: ["jetsam-testapp", "alloc", "40", "--hold"] }"#,
      with: #"mail: { command: ["jetsam-testapp", "crash", "segv"] }"#)
    try crashing.write(toFile: scenario, atomically: true, encoding: .utf8)
    let (failed, reports) = try Self.run(scenario, ["--seed", "7"])
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(failed.status == 1)
    #expect(
      failed.stdout.contains("chaos.exits every exit was jetsam's or asked for by the chaos: unexpected exits: mail"))
    #expect(failed.stdout.contains("replay this chaos session with: jetsam-lab run \(scenario) --seed 7"))
  }

  @Test("a wrong expectation fails the run, naming its step, in the output and the JUnit XML")
  func wrongExpectation() throws {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let scenario = directory + "/wrong.json5"
    try """
    {
      apps: { sleeper: { command: ["jetsam-testapp", "idle"] } },
      steps: [
        { launch: "sleeper" },
        { kill: "sleeper", reason: "appWatchdog" },
        { expect: { exit: { app: "sleeper", reason: "memoryPressure" } }, within: "1s" },
        { expect: { exit: { app: "sleeper", reason: "appWatchdog" } } },
      ],
    }
    """.write(toFile: scenario, atomically: true, encoding: .utf8)
    let (result, reports) = try Self.run(scenario)
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 1)
    #expect(
      result.stdout.contains(
        "steps[2] expect exit of sleeper (memoryPressure): expected exit of sleeper (memoryPressure) within 1s; "
          + "exits seen: sleeper launch 1: appWatchdog in foreground"), "\(result.stdout)")
    let cases = try Self.junitCases(reports + "/junit.xml")
    let failure = try #require(cases["steps[2] expect exit of sleeper (memoryPressure)"] ?? nil)
    #expect(failure.contains("exits seen: sleeper launch 1: appWatchdog"))
    // How close memory came, for a kill that did not come: the level and the reading last seen.
    #expect(failure.contains("; memory last seen: normal, ") && failure.contains(" available of "), "\(failure)")
    #expect(cases["steps[3] expect exit of sleeper (appWatchdog)"] == .some(nil))
  }

  /// A lab that runs until it is stopped: three apps launched, then a long wait.
  static let endlessScenario = """
    {
      apps: {
        one: { command: ["jetsam-testapp", "idle"] },
        two: { command: ["jetsam-testapp", "idle"] },
        three: { command: ["jetsam-testapp", "alloc", "20", "--hold"] },
      },
      steps: [ { launch: "one" }, { launch: "two" }, { launch: "three" }, { wait: "10m" } ],
    }
    """

  @Test(
    "a lab ended by SIGINT, SIGTERM or SIGKILL leaves no jetsamd, app or cgroup behind",
    arguments: [SIGINT, SIGTERM, SIGKILL])
  func interruptedLab(signal: Int32) throws {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try Self.endlessScenario.write(toFile: directory + "/endless.json5", atomically: true, encoding: .utf8)
    let lab = try ChildProcess(
      Binaries.current.directory + "/jetsam-lab", ["run", directory + "/endless.json5", "--output", directory + "/run"])
    var started: [StartedProcess] = []
    var deviceDirectories: Set<String> = []
    defer {
      // Whatever a failed run left: its processes by pid, its cgroups by path.
      lab.stop(signal: SIGKILL, grace: 0)
      for process in started where process.isAlive { kill(process.pid, SIGKILL) }
      for path in deviceDirectories { try? removeCgroupTree(path) }
    }
    try waitUntil("the lab to launch its three apps", timeout: .seconds(90)) {
      lab.log.first { $0.hasPrefix("ok") && $0.contains("steps[2] launch three") } != nil || !lab.isRunning
    }
    try #require(lab.isRunning, "\(lab.log.text)")
    let daemons = StartedProcess.children(of: lab.pid)
    try #require(daemons.count == 1, "the lab's children: \(daemons)")
    let apps = StartedProcess.children(of: daemons[0].pid)
    started = daemons + apps
    // Its apps, and whatever else it may have started (a diagnostic's capture): all of it must go.
    try #require(apps.count >= 3, "jetsamd's children: \(apps)")
    // The device cgroup, in every hierarchy, from where the apps are.
    let device = "jetsam-lab-\(lab.pid)"
    for app in apps {
      for path in CgroupHost.directories(of: app.pid).values {
        guard let range = path.range(of: "/" + device + "/") else { continue }
        deviceDirectories.insert(String(path[..<range.lowerBound]) + "/" + device)
      }
    }
    try #require(!deviceDirectories.isEmpty, "the apps' cgroups: \(apps.map { CgroupHost.directories(of: $0.pid) })")

    lab.signal(signal)
    let gone = eventually(timeout: .seconds(90), interval: .milliseconds(20)) {
      !lab.isRunning && started.allSatisfy { !$0.isAlive }
        && deviceDirectories.allSatisfy { !FileManager.default.fileExists(atPath: $0) }
    }
    let left = started.filter(\.isAlive).map(\.pid)
    let cgroupsLeft = deviceDirectories.filter { FileManager.default.fileExists(atPath: $0) }
    let daemonLog = (try? String(contentsOfFile: directory + "/run/jetsamd/jetsamd.log", encoding: .utf8)) ?? ""
    #expect(gone, "left running: \(left), cgroups left: \(cgroupsLeft.sorted())\n\(lab.log.text)\n\(daemonLog)")
    // jetsamd stopped gracefully, not by the lab's SIGKILL escalation: it ended its apps itself.
    #expect(daemonLog.contains("stopping: terminating 3 app(s)") && daemonLog.contains("stopped;"), "\(daemonLog)")
    if signal == SIGKILL {
      #expect(daemonLog.contains("the process that started jetsamd has ended"), "\(daemonLog)")
    } else {
      #expect(lab.terminationStatus == 128 + signal, "\(lab.log.text)")
      #expect(lab.log.text.contains("jetsam-lab: interrupted by SIG"), "\(lab.log.text)")
    }
  }

  @Test("jetsam-lab --help prints its usage (status 0); a missing or unknown command is misuse (64)")
  func help() throws {
    for arguments in [["--help"], ["-h"], ["run", "--help"]] {
      let help = try runCommand(Binaries.current.directory + "/jetsam-lab", arguments)
      #expect(help.status == 0 && help.stdout.contains("Usage: jetsam-lab"), "\(arguments): \(help.stderr)")
    }
    for arguments in [[], ["frobnicate"]] {
      #expect(try runCommand(Binaries.current.directory + "/jetsam-lab", arguments).status == 64, "\(arguments)")
    }
    // check's commands, documented, and refused as jetsamctl launch refuses them, before anything starts.
    let help = try runCommand(Binaries.current.directory + "/jetsam-lab", ["check", "--help"])
    for flag in ["--ready CMD", "--digest CMD", "--digest-valid-for S", "--on EVENT=CMD", "--exercise CMD"] {
      #expect(help.stdout.contains(flag), "\(flag): \(help.stdout)")
    }
    let misuses: [([String], String)] = [
      (["--digest-valid-for", "10"], "--digest-valid-for: needs --digest"),
      (["--ready", " "], "--ready: the command is empty"),
      (["--on", "SAVE"], #"--on: "SAVE" is not EVENT=CMD"#),
      (["--on", "didSave=true"], "--on didSave: unknown lifecycle event"),
      (["--exercise", ""], "--exercise: the command is empty"),
      (["--digest", "true"], "--digest: needs --ready (the restored digest waits for it)"),
      (
        ["--ready", "true", "--digest", "true", "--digest-valid-for", "soon"],
        #"--digest-valid-for: "soon" is not a number of seconds"#
      ),
    ]
    for (flags, message) in misuses {
      let result = try runCommand(
        Binaries.current.directory + "/jetsam-lab", ["check", "app"] + flags + ["--", "/bin/sleep", "60"])
      #expect(result.status == 64 && result.stderr.contains("jetsam-lab: \(message)"), "\(flags): \(result.stderr)")
    }
    let runWithCommands = try runCommand(
      Binaries.current.directory + "/jetsam-lab", ["run", "x.json5", "--ready", "true"])
    #expect(runWithCommands.status == 64 && runWithCommands.stderr.contains("--ready is check's"))
  }

  @Test("a scenario that cannot run is refused before anything starts, naming the file, the step and why")
  func scenarioErrors() throws {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cases: [(String, String)] = [
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { launch: "a" }, { pressure: "extreme" } ] }"#,
        #"bad.json5: steps[1].pressure: "extreme" is not a level (normal, warning, urgent, critical, clear)"#
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { suspend: "b" } ] }"#,
        #"bad.json5: steps[0].suspend: no app "b" in apps (known: a)"#
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { launch: "a", kill: "a" } ] }"#,
        "bad.json5: steps[0]: a step has one action, not launch and kill"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { expect: { exit: { app: "a", reason: "oom" } } } ] }"#,
        "bad.json5: steps[0].expect.exit.reason: not an exit reason"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { expect: { memory: { app: "a", atLeast: "lots" } } } ] }"#,
        "bad.json5: steps[0].expect.memory.atLeast: expected a size such as 512M or 1.5G"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { expect: { memory: { app: "a" } } } ] }"#,
        "bad.json5: steps[0].expect.memory: needs app and atLeast"
      ),
      (
        #"{ apps: { a: { command: ["x"] } }, steps: [ { wait: "soon" } ] }"#,
        "bad.json5: steps[0].wait: expected a duration such as 500ms, 10s or 2m"
      ),
      (#"{ apps: { a: { command: ["x"] } }, steps: [], colour: 1 }"#, "bad.json5: colour: unknown key"),
      (#"{ apps: { a: { command: ["x"] } }, steps: [ { launch: "a" } "#, "bad.json5: not valid JSON5 at line 1"),
      (#"{ apps: { "a b": { command: ["x"] } }, steps: [], "": 1 }"#, #"bad.json5: "": unknown key"#),
      (#"{ apps: { a: { command: ["x"] } } }"#, "bad.json5: steps: missing or not a list"),
      (
        #"{ apps: { a: { command: ["x\u0000"] } }, steps: [] }"#,
        "bad.json5: not valid JSON5 at line 1, column 28: a NUL"
      ),
      // The private jetsamd's config: named by the scenario's own key and the value as written, never by the
      // jetsamd.json5 the lab writes for it.
      (
        #"{ config: { device: { ram: "1M" } }, apps: { a: { command: ["x"] } }, steps: [] }"#,
        #"bad.json5: config.device.ram: 1048576 bytes is too small (at least 16M) (written: "1M")"#
      ),
      (
        #"{ config: { timeScale: Infinity }, apps: { a: { command: ["x"] } }, steps: [] }"#,
        "bad.json5: config.timeScale: must be above 0 and at most 100 (written: Infinity)"
      ),
      (
        #"{ config: { daemonNice: 99999999999 }, apps: { a: { command: ["x"] } }, steps: [] }"#,
        "bad.json5: config.daemonNice: 99999999999 is out of range"
      ),
      (
        #"{ device: "DIR/profile.json5", apps: { a: { command: ["x"] } }, steps: [] }"#,
        "bad.json5: device: profile.json5: device.ram: not a size (use e.g. 512M, 2G or plain bytes, at most 1P) (written: -Infinity)"
      ),
    ]
    try "{\n  device: { ram: -Infinity },\n}".write(
      toFile: directory + "/profile.json5", atomically: true, encoding: .utf8)
    for (text, expected) in cases {
      try text.replacing("DIR", with: directory).write(
        toFile: directory + "/bad.json5", atomically: true, encoding: .utf8)
      let (result, reports) = try Self.run(directory + "/bad.json5")
      #expect(result.status == 2, "\(text)")
      #expect(result.stderr.contains(expected), "\(text) → \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: reports), "no run started for \(text)")
    }
  }

  @Test(
    "the trace and the HTML report: lanes, kill markers with their records, no script error in Chromium",
    .enabled(
      if: HeadlessChromium.isInstalled, "needs chromium (make test installs it)"))
  func reportsInChromium() throws {
    let (result, reports) = try Self.run(Self.labs + "restoration.json5")
    defer { try? FileManager.default.removeItem(atPath: reports) }
    #expect(result.status == 0, "\(result.stdout)")

    // The trace: Chrome's Trace Event format, one process per app, states as slices, memory as counters.
    let events = try TraceFile(contentsOf: reports + "/trace.json").events
    for event in events {
      #expect(["M", "X", "C", "i", "B", "E"].contains(event["ph"] as? String ?? ""), "\(event)")
      #expect(event["pid"] is Int && (event["ph"] as? String == "M" || event["ts"] is Double), "\(event)")
    }
    #expect(Set(try TraceFile(contentsOf: reports + "/trace.json").processIDs.keys) == ["device", "notes", "mail"])
    let slices = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "lifecycle" }
    #expect(
      Set(slices.compactMap { $0["name"] as? String }).isSuperset(of: ["foregroundActive", "background", "suspended"]))
    let exitEvent = try #require(events.first { ($0["name"] as? String) == "exit: memoryPressure" })
    let record = try #require((exitEvent["args"] as? [String: Any])?["record"] as? [String: Any])
    #expect(record["app"] as? String == "notes" && record["state"] as? String == "suspended")
    #expect(events.contains { $0["ph"] as? String == "C" && $0["name"] as? String == "available memory" })
    let begins = events.filter { $0["ph"] as? String == "B" }.count
    #expect(begins > 0 && begins == events.filter { $0["ph"] as? String == "E" }.count)

    // The page, as Chromium renders it: the script ran to its end without an error, one lane per app, one kill
    // marker per exit.
    let page = "file://" + reports + "/report.html"
    let dom = try HeadlessChromium.dumpDOM(page)
    #expect(dom.status == 0, "\(dom.stderr)")
    let body = try #require(dom.stdout.range(of: "<body[^>]*>", options: .regularExpression).map { dom.stdout[$0] })
    #expect(body.contains(#"data-ready="yes""#) && !body.contains("data-errors"), "\(body)")
    #expect(body.contains(#"data-lanes="2""#) && body.contains(#"data-kills="1""#), "\(body)")
    #expect(!dom.stderr.contains("Uncaught"), "\(dom.stderr)")
    #expect(dom.stdout.contains("<td>notes</td><td>1</td><td>memoryPressure</td>"))
    // The launch metrics jetsamd measured, one row per app: notes (the demo app) with its launch times and its save
    // signposts; mail (which does not speak the protocol) with none.
    #expect(body.contains(#"data-launch-rows="2""#), "\(body)")
    let notes = try #require(
      dom.stdout.range(of: #"<tr data-app="notes">.*?</tr>"#, options: .regularExpression).map { dom.stdout[$0] })
    #expect(notes.contains(#"<td>notes</td><td>2</td><td class="launch-time">"#), "\(notes)")
    #expect(
      notes.range(of: #"class="launch-time">[0-9,]+–[0-9,]+ ms ×"#, options: .regularExpression) != nil, "\(notes)")
    #expect(notes.range(of: #"class="signposts">save ×[1-9]"#, options: .regularExpression) != nil, "\(notes)")
    // It was suspended before its kill: its memory then, as MetricKit writes it.
    #expect(
      notes.range(of: #"class="suspended-memory">[1-9][0-9,]* kB<"#, options: .regularExpression) != nil, "\(notes)")
    #expect(dom.stdout.contains(#"<tr data-app="mail"><td>mail</td><td>0</td><td class="launch-time">—</td>"#))
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reports + "/summary.json")))
        as? [String: Any])
    #expect((summary["metrics"] as? [[String: Any]])?.count == 2)
    // notes' second launch followed its kill for memory pressure: its time to first draw is counted apart.
    let notesPayload = (summary["metrics"] as? [[String: Any]])?.first {
      ($0["metaData"] as? [String: Any])?["bundleIdentifier"] as? String == "notes"
    }
    let split =
      (notesPayload?["applicationLaunchMetrics"] as? [String: Any])?["jetsamHistogrammedTimeToFirstDrawByPreviousExit"]
      as? [String: Any]
    #expect(split?.keys.sorted() == ["fresh", "memoryPressure"], "\(String(describing: notesPayload))")

    // A screenshot shows the lanes: the foreground, background and suspended colours and the kill marker's red.
    let shot = reports + "/shot.png"
    let screenshot = try HeadlessChromium.screenshot(page, to: shot, width: 1300, height: 900)
    #expect(screenshot.status == 0, "\(screenshot.stderr)")
    let colours = try runCommand(
      "/usr/bin/python3",
      [
        Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/png_colours.py", shot, "2e9e4f", "3b7dd8",
        "9aa3ad", "c62828",
      ])
    let counts = Dictionary(
      uniqueKeysWithValues: colours.stdout.split(separator: "\n").map {
        let parts = $0.split(separator: " ")
        return (String(parts[0]), Int(parts[1]) ?? 0)
      })
    #expect(counts["2e9e4f"] ?? 0 > 500, "foregroundActive lanes: \(counts)")
    #expect(counts["3b7dd8"] ?? 0 > 50, "background lanes: \(counts)")
    #expect(counts["9aa3ad"] ?? 0 > 20, "suspended lanes: \(counts)")
    #expect(counts["c62828"] ?? 0 > 10, "the kill marker: \(counts)")
  }
}

/// A process seen running, by pid and start time: once it has ended, another process with its pid is not it.
struct StartedProcess: CustomStringConvertible {
  var pid: Int32
  var startTime: UInt64?

  /// Whether it runs still (a zombie has ended).
  var isAlive: Bool {
    guard let stat = try? ProcessStat.read(pid: pid) else { return false }
    return !stat.hasEnded && stat.startTime == startTime
  }

  var description: String { "\(pid)" }

  /// The running children of `parent`, from /proc.
  static func children(of parent: Int32) -> [StartedProcess] {
    let entries = (try? directoryEntries("/proc")) ?? []
    return entries.compactMap { entry in
      guard let pid = Int32(entry.name), let stat = try? ProcessStat.read(pid: pid), stat.parentProcessID == parent,
        !stat.hasEnded
      else { return nil }
      return StartedProcess(pid: pid, startTime: stat.startTime)
    }
  }
}

/// A new empty directory under the temporary directory.
func makeScratchDirectory() throws -> String {
  let path = NSTemporaryDirectory() + "jetsam-scratch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}
