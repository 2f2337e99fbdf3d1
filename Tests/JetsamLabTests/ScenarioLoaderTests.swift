import Foundation
import JetsamCore
import JetsamTestKit
import Testing

@testable import JetsamLab

/// Scenarios read through the config module's decoder: every refusal names the file, the key path (or line and
/// column) and why, with the value as written; every lab in labs/ loads.
@Suite("Scenario files")
struct ScenarioLoaderTests {
  static let apps =
    #"apps: { a: { command: ["x"] }, b: { command: ["y"], exercise: "true" }, "c{1..2}": { command: ["z"] } }"#
  static func top(_ rest: String) -> String { "{ \(apps), \(rest) }" }
  static func app(_ fields: String) -> String { #"{ apps: { a: { command: ["x"], "# + fields + " } }, steps: [] }" }
  static func steps(_ list: String) -> String { top("steps: [ \(list) ]") }
  static func expect(_ body: String) -> String { steps("{ expect: { \(body) } }") }
  static func chaos(_ fields: String) -> String { top("chaos: { duration: \"1s\", \(fields) }") }

  /// A scenario (`DIR`: a directory holding `profile.json5`, whose RAM is not a size, and `broken.json5`, not JSON5)
  /// and its refusal after `bad.json5: `.
  static let refusals: [(String, String)] = [
    // The top level: its keys, the device profile, the private jetsamd's config.
    ("[1]", #"the top level must be an object"#),
    (
      top("steps: [], colour: 1, zebra: 2"),
      #"colour: unknown key (known keys: apps, chaos, config, device, expect, hosts, name, steps) (written: 1)"#
    ),
    (
      top(#"steps: [], "": 1"#),
      #""": unknown key (known keys: apps, chaos, config, device, expect, hosts, name, steps) (written: 1)"#
    ),
    (top("name: 5, steps: []"), #"name: expected a string (written: 5)"#),
    (top("name: null, steps: []"), #"name: expected a string, got null"#),
    (top("device: 5, steps: []"), #"device: expected a string (written: 5)"#),
    (top(#"device: "no-such-profile", steps: []"#), #"device: no profile "no-such-profile" (looked in DIR)"#),
    (
      top(#"device: "/no/such/profile.json5", steps: []"#),
      #"device: no profile file /no/such/profile.json5 (written: "/no/such/profile.json5")"#
    ),
    (
      top(#"device: "DIR/broken.json5", steps: []"#),
      #"device: broken.json5: not valid JSON5 at line 1, column 11: a value is missing at the end of the text (written: "DIR/broken.json5")"#
    ),
    (
      top(#"device: "DIR/profile.json5", steps: []"#),
      #"device: profile.json5: device.ram: not a size (use e.g. 512M, 2G or plain bytes, at most 1P) (written: -Infinity)"#
    ),
    (top("config: 5, steps: []"), #"config: expected an object (jetsamd's config) (written: 5)"#),
    (
      top(#"config: { stateDirectory: "/x" }, steps: []"#),
      #"config.stateDirectory: set by the lab (each run has its own) (written: "/x")"#
    ),
    (
      top(#"config: { device: { ram: "1M" } }, steps: []"#),
      #"config.device.ram: 1048576 bytes is too small (at least 16M) (written: "1M")"#
    ),
    (
      top("config: { timeScale: Infinity }, steps: []"),
      #"config.timeScale: must be above 0 and at most 100 (written: Infinity)"#
    ),
    (
      top("config: { colour: 1 }, steps: []"),
      #"config.colour: unknown key (known keys: appAcknowledgements, appUser, apps, backgroundTasks, controlGroup, cpuMonitor, daemonNice, daemonOOMScoreAdj, daemonRealtimePriority, debugRequests, defaults, device, diagnostics, diskWriteMonitor, foregroundSlots, killTimeout, lockedFiles, metrics, passEnvironment, records, runtimeDirectory, sockets, spawnerSocket, stateDirectory, suspend, terminateGrace, timeScale, watchdog) (written: 1)"#
    ),
    (
      top(#"config: { device: { ram: "1M" } }, device: "DIR/profile.json5", steps: []"#),
      #"config.device.ram: 1048576 bytes is too small (at least 16M) (written: "1M")"#
    ),
    // Apps: names, ranges, and each app's keys.
    ("{ steps: [] }", #"apps: missing (the apps the steps start)"#),
    ("{ apps: 5, steps: [] }", #"apps: expected an object of apps (written: 5)"#),
    ("{ apps: {}, steps: [] }", #"apps: expected an object of apps (written: {})"#),
    (
      #"{ apps: { "a{3..1}": { command: ["x"] } }, steps: [] }"#,
      #"apps."a{3..1}": a{3..1}: expected a range {FIRST..LAST} of at most 10000 numbers, FIRST ≤ LAST (written: { command: ["x"] })"#
    ),
    (
      #"{ apps: { "a{1..2}": { command: ["x"] }, a1: { command: ["x"] } }, steps: [] }"#,
      #"apps."a{1..2}": a1 is described twice (written: { command: ["x"] })"#
    ),
    (
      #"{ apps: { "a{1..6000}": { command: ["x"] }, "b{1..6000}": { command: ["x"] } }, steps: [] }"#,
      #"apps: more than 10000 apps (written: { "a{1..6000}": { command: ["x"] }, "b{1..6000}": { command:…)"#
    ),
    ("{ apps: { a: 5 }, steps: [] }", #"apps.a: expected an object (written: 5)"#),
    (
      #"{ apps: { a: { command: ["x"], colour: 1 } }, steps: [] }"#,
      #"apps.a.colour: unknown key (known keys: acknowledgements, band, command, cpuLimit, digest, digestValidFor, env, exercise, memoryLimit, on, ready) (written: 1)"#
    ),
    ("{ apps: { a: { } }, steps: [] }", #"apps.a: command: missing or not a list of words (written: { })"#),
    (
      #"{ apps: { a: { command: "x" } }, steps: [] }"#,
      #"apps.a: command: missing or not a list of words (written: { command: "x" })"#
    ),
    (
      "{ apps: { a: { command: [] } }, steps: [] }",
      #"apps.a: command: missing or not a list of words (written: { command: [] })"#
    ),
    (#"{ apps: { a: { command: ["x", 5] } }, steps: [] }"#, #"apps.a.command[1]: expected a string (written: 5)"#),
    (app("env: 5"), #"apps.a.env: expected an object of variables (written: 5)"#),
    (app("env: { K: 5 }"), #"apps.a.env.K: expected a string (written: 5)"#),
    (app(#"memoryLimit: "lots""#), #"apps.a.memoryLimit: expected a size such as 512M or 1.5G (written: "lots")"#),
    (app("memoryLimit: 0"), #"apps.a.memoryLimit: expected a size such as 512M or 1.5G (written: 0)"#),
    (app("memoryLimit: -5"), #"apps.a.memoryLimit: expected a size such as 512M or 1.5G (written: -5)"#),
    (app("memoryLimit: 1.5"), #"apps.a.memoryLimit: expected a size such as 512M or 1.5G"#),
    (app(#"memoryLimit: "0""#), #"apps.a.memoryLimit: expected a size such as 512M or 1.5G (written: "0")"#),
    (app(#"cpuLimit: "x""#), #"apps.a.cpuLimit: expected a number (written: "x")"#),
    (app("cpuLimit: 0.5"), #"apps.a.cpuLimit: expected a percentage of a core, 1 to 100000 (written: 0.5)"#),
    (app("cpuLimit: 200000"), #"apps.a.cpuLimit: expected a percentage of a core, 1 to 100000 (written: 200000)"#),
    (app("band: 5"), #"apps.a.band: expected a string (written: 5)"#),
    (
      app(#"band: "nope""#),
      #"apps.a.band: not a band (idle, background, mail, foreground, audio, critical) (written: "nope")"#
    ),
    (
      app(#"acknowledgements: "sometimes""#),
      #"apps.a.acknowledgements: not a mode (auto, always, never) (written: "sometimes")"#
    ),
    (app("acknowledgements: 5"), #"apps.a.acknowledgements: expected a string (written: 5)"#),
    (app("ready: 5"), #"apps.a.ready: expected a command line (a string, run by /bin/sh -c) (written: 5)"#),
    (app(#"ready: "  ""#), #"apps.a.ready: the command is empty (written: "  ")"#),
    (app(#"digest: "x""#), #"apps.a.digest: needs ready (the restored digest waits for it) (written: "x")"#),
    (
      app(#"ready: "true", digest: 5"#),
      #"apps.a.digest: expected a command line (a string, run by /bin/sh -c) (written: 5)"#
    ),
    (
      app(#"digestValidFor: "1s""#),
      #"apps.a.digestValidFor: needs digest (the state it says is fresh) (written: "1s")"#
    ),
    (
      app(#"ready: "true", digest: "x", digestValidFor: "soon""#),
      #"apps.a.digestValidFor: expected a duration such as 500ms, 10s or 2m (written: "soon")"#
    ),
    (
      app(#"ready: "true", digest: "x", digestValidFor: "0s""#),
      #"apps.a.digestValidFor: expected a duration above 0 (written: "0s")"#
    ),
    (
      app("on: 5"),
      #"apps.a.on: expected an object of lifecycle event → command, e.g. { didEnterBackground: "…" } (written: 5)"#
    ),
    (
      app("on: {}"),
      #"apps.a.on: expected an object of lifecycle event → command, e.g. { didEnterBackground: "…" } (written: {})"#
    ),
    (
      app(#"on: { nope: "x" }"#),
      #"apps.a.on.nope: not a lifecycle event (didFinishLaunching, willEnterForeground, didBecomeActive, willResignActive, didEnterBackground, memoryWarning, backgroundTaskWillExpire, willTerminate) (written: "x")"#
    ),
    (
      app("on: { didEnterBackground: 5 }"),
      #"apps.a.on.didEnterBackground: expected a command line (a string, run by /bin/sh -c) (written: 5)"#
    ),
    (app("exercise: 5"), #"apps.a.exercise: expected a command line (a string, run by /bin/sh -c) (written: 5)"#),
    (app(#"exercise: """#), #"apps.a.exercise: the command is empty (written: "")"#),
    // Steps: one action each, its modifiers, and the apps it names.
    ("{ \(apps) }", #"steps: missing or not a list"#),
    (top("steps: 5"), #"steps: missing or not a list (written: 5)"#),
    (top(#"steps: null, chaos: { duration: "1s" }"#), #"steps: missing or not a list (written: null)"#),
    (steps("5"), #"steps[0]: expected an object (written: 5)"#),
    (
      steps("{}"),
      #"steps[0]: a step needs one action (launch, relaunch, activate, background, suspend, resume, terminate, kill, wait, pressure, allocate, release, ramp, spike, charging, exercise, expect) (written: {})"#
    ),
    (
      steps(#"{ launch: "a", kill: "a" }"#),
      #"steps[0]: a step has one action, not launch and kill (written: { launch: "a", kill: "a" })"#
    ),
    (
      steps(#"{ launch: "a", colour: 1 }"#),
      #"steps[0].colour: unknown key (known keys: activate, allocate, background, charging, exercise, expect, fails, for, host, inBackground, kill, launch, pressure, ramp, reason, relaunch, release, resume, spike, suspend, terminate, wait, within) (written: 1)"#
    ),
    (
      steps(#"{ launch: "a", inBackground: "yes" }"#),
      #"steps[0].inBackground: expected true or false (written: "yes")"#
    ),
    (
      steps(#"{ suspend: "a", inBackground: true }"#),
      #"steps[0]: inBackground: belongs to a launch step (written: { suspend: "a", inBackground: true })"#
    ),
    (
      steps(#"{ kill: "a", reason: "oom" }"#),
      #"steps[0].reason: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: "oom")"#
    ),
    (
      steps(#"{ kill: "a", reason: 5 }"#),
      #"steps[0].reason: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: 5)"#
    ),
    (
      steps(#"{ suspend: "a", reason: "abnormal" }"#),
      #"steps[0]: reason: belongs to a kill step (written: { suspend: "a", reason: "abnormal" })"#
    ),
    (steps(#"{ spike: "1G" }"#), #"steps[0].spike: a spike needs for (how long it lasts) (written: "1G")"#),
    (
      steps(#"{ spike: "1G", for: "soon" }"#),
      #"steps[0].for: expected a duration such as 500ms, 10s or 2m (written: "soon")"#
    ),
    (
      steps(#"{ wait: "1s", for: "1s" }"#),
      #"steps[0]: for: belongs to a spike step (written: { wait: "1s", for: "1s" })"#
    ),
    (
      steps(#"{ exercise: "a" }"#),
      #"steps[0].exercise: a has no exercise (give it one: apps.a.exercise, a command line) (written: "a")"#
    ),
    (steps(#"{ exercise: "b", fails: "yes" }"#), #"steps[0].fails: expected true or false (written: "yes")"#),
    (
      steps(#"{ suspend: "a", fails: true }"#),
      #"steps[0]: fails: belongs to an exercise step (written: { suspend: "a", fails: true })"#
    ),
    (
      steps(#"{ wait: "1s", within: "soon" }"#),
      #"steps[0].within: expected a duration such as 500ms, 10s or 2m (written: "soon")"#
    ),
    (steps(#"{ wait: "1s", host: 5 }"#), #"steps[0].host: expected a string (written: 5)"#),
    (steps("{ suspend: 5 }"), #"steps[0].suspend: expected an app name or a list of them (written: 5)"#),
    (steps("{ suspend: [] }"), #"steps[0].suspend: expected at least one app (written: [])"#),
    (steps(#"{ suspend: ["a", 5] }"#), #"steps[0].suspend[1]: expected a string (written: 5)"#),
    (steps(#"{ suspend: ["a", "d"] }"#), #"steps[0].suspend[1]: no app "d" in apps (known: a, b, c1, c2)"#),
    (steps(#"{ suspend: "d" }"#), #"steps[0].suspend: no app "d" in apps (known: a, b, c1, c2)"#),
    (
      steps(#"{ suspend: "a{1..2}" }"#),
      #"steps[0].suspend: no app "a1" in apps (known: a, b, c1, c2) (written: "a{1..2}")"#
    ),
    (
      steps(#"{ suspend: "c{2..1}" }"#),
      #"steps[0].suspend: c{2..1}: expected a range {FIRST..LAST} of at most 10000 numbers, FIRST ≤ LAST (written: "c{2..1}")"#
    ),
    (steps(#"{ activate: ["a"] }"#), #"steps[0].activate: expected an app name (written: ["a"])"#),
    (steps(#"{ kill: "c{1..2}" }"#), #"steps[0].kill: expected one app, not a range (written: "c{1..2}")"#),
    (steps("{ relaunch: 5 }"), #"steps[0].relaunch: expected an app name (written: 5)"#),
    (steps(#"{ wait: "soon" }"#), #"steps[0].wait: expected a duration such as 500ms, 10s or 2m (written: "soon")"#),
    (steps("{ wait: -1 }"), #"steps[0].wait: expected a duration such as 500ms, 10s or 2m (written: -1)"#),
    (steps("{ wait: 1e-5 }"), #"steps[0].wait: expected a duration such as 500ms, 10s or 2m (written: 1e-5)"#),
    (steps("{ wait: true }"), #"steps[0].wait: expected a duration such as 500ms, 10s or 2m (written: true)"#),
    (
      steps(#"{ pressure: "extreme" }"#),
      #"steps[0].pressure: "extreme" is not a level (normal, warning, urgent, critical, clear)"#
    ),
    (steps("{ pressure: 5 }"), #"steps[0].pressure: expected a string (written: 5)"#),
    (steps(#"{ allocate: "lots" }"#), #"steps[0].allocate: expected a size such as 512M or 1.5G (written: "lots")"#),
    (steps("{ release: false }"), #"steps[0].release: expected true (written: false)"#),
    (steps("{ release: 1 }"), #"steps[0].release: expected true (written: 1)"#),
    (steps("{ ramp: 5 }"), #"steps[0].ramp: expected an object (written: 5)"#),
    (steps(#"{ ramp: { to: "1G" } }"#), #"steps[0].ramp: a ramp needs to and over (written: { to: "1G" })"#),
    (
      steps(#"{ ramp: { to: "1G", over: "1s", steps: 0 } }"#),
      #"steps[0].ramp.steps: expected a whole number from 1 to 1000"#
    ),
    (
      steps(#"{ ramp: { to: "x", over: "1s" } }"#),
      #"steps[0].ramp.to: expected a size such as 512M or 1.5G (written: "x")"#
    ),
    (
      steps(#"{ ramp: { to: "1G", over: "x" } }"#),
      #"steps[0].ramp.over: expected a duration such as 500ms, 10s or 2m (written: "x")"#
    ),
    (
      steps(#"{ ramp: { to: "1G", over: "1s", colour: 1 } }"#),
      #"steps[0].ramp.colour: unknown key (known keys: over, steps, to) (written: 1)"#
    ),
    (steps(#"{ charging: "yes" }"#), #"steps[0].charging: expected true or false (written: "yes")"#),
    // An expect step's expectations.
    (steps("{ expect: 5 }"), #"steps[0].expect: expected an object (written: 5)"#),
    (
      expect(""),
      #"steps[0].expect: expect one of exit, exits, noExit, restoration, resumption, state, signpost, event, acknowledged, memory (written: {  })"#
    ),
    (
      expect(#"exit: { app: "a" }, noExit: "a""#),
      #"steps[0].expect: expect one of exit, exits, noExit, restoration, resumption, state, signpost, event, acknowledged, memory (written: { exit: { app: "a" }, noExit: "a" })"#
    ),
    (
      expect("colour: 1"),
      #"steps[0].expect.colour: unknown key (known keys: acknowledged, event, exit, exits, memory, noExit, restoration, resumption, signpost, state) (written: 1)"#
    ),
    (expect("exit: 5"), #"steps[0].expect.exit: expected an object (written: 5)"#),
    (expect("exit: {}"), #"steps[0].expect.exit: app: missing (written: {})"#),
    (expect(#"exit: { app: "d" }"#), #"steps[0].expect.exit.app: no app "d" in apps (known: a, b, c1, c2)"#),
    (
      expect(#"exit: { app: "a", reason: "oom" }"#),
      #"steps[0].expect.exit.reason: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: "oom")"#
    ),
    (
      expect(#"exit: { app: "a", reason: 5 }"#),
      #"steps[0].expect.exit.reason: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: 5)"#
    ),
    (
      expect(#"exit: { app: "a", state: "zombie" }"#),
      #"steps[0].expect.exit.state: "zombie" is not a state an app dies in (foreground, background, suspended)"#
    ),
    (
      expect(#"exit: { app: "a", launch: 0 }"#),
      #"steps[0].expect.exit.launch: expected a whole number from 1 to 1000000"#
    ),
    (
      expect(#"exit: { app: "a", launch: "1" }"#),
      #"steps[0].expect.exit.launch: expected a whole number from 1 to 1000000 (written: "1")"#
    ),
    (
      expect(#"exit: { app: "a", lockedFile: "rel/path" }"#),
      #"steps[0].expect.exit.lockedFile: expected an absolute path (as the record names it), or one from {tmpDir} (written: "rel/path")"#
    ),
    (
      expect(#"exit: { app: "a", colour: 1 }"#),
      #"steps[0].expect.exit.colour: unknown key (known keys: app, launch, lockedFile, reason, state) (written: 1)"#
    ),
    (expect("exits: []"), #"steps[0].expect.exits: expected a list of exits (written: [])"#),
    (expect("exits: 5"), #"steps[0].expect.exits: expected a list of exits (written: 5)"#),
    (
      expect(#"exits: [ { app: "a" }, { app: "d" } ]"#),
      #"steps[0].expect.exits[1].app: no app "d" in apps (known: a, b, c1, c2)"#
    ),
    (expect(#"noExit: ["a"]"#), #"steps[0].expect.noExit: expected an app name (written: ["a"])"#),
    (
      expect(#"restoration: { app: "a" }"#),
      #"steps[0].expect.restoration: needs app and verdict (written: { app: "a" })"#
    ),
    (
      expect(#"restoration: { app: "a", verdict: "maybe" }"#),
      #"steps[0].expect.restoration.verdict: "maybe" is not a restoration verdict (match, mismatch, unsaved, lost)"#
    ),
    (
      expect(#"resumption: { app: "a", verdict: "match" }"#),
      #"steps[0].expect.resumption.verdict: "match" is not a resumption verdict (fresh, stale)"#
    ),
    (
      expect(#"restoration: { app: "d", verdict: "match" }"#),
      #"steps[0].expect.restoration.app: no app "d" in apps (known: a, b, c1, c2)"#
    ),
    (
      expect(#"restoration: { app: "a", verdict: 5 }"#),
      #"steps[0].expect.restoration.verdict: expected a string (written: 5)"#
    ),
    (expect(#"state: { app: "a" }"#), #"steps[0].expect.state: needs app and is (written: { app: "a" })"#),
    (
      expect(#"state: { app: "a", is: "dancing" }"#),
      #"steps[0].expect.state.is: "dancing" is not a state (background, foreground, foregroundActive, foregroundInactive, launching, notRunning, suspended, terminated)"#
    ),
    (
      expect(#"state: { app: "d", is: "suspended" }"#),
      #"steps[0].expect.state.app: no app "d" in apps (known: a, b, c1, c2)"#
    ),
    (expect(#"signpost: { app: "a" }"#), #"steps[0].expect.signpost: needs app and name (written: { app: "a" })"#),
    (expect(#"signpost: { app: "a", name: 5 }"#), #"steps[0].expect.signpost.name: expected a string (written: 5)"#),
    (
      expect(#"signpost: { app: "a", name: "x", phase: 5 }"#),
      #"steps[0].expect.signpost.phase: expected a string (written: 5)"#
    ),
    (expect(#"memory: { app: "a" }"#), #"steps[0].expect.memory: needs app and atLeast (written: { app: "a" })"#),
    (
      expect(#"memory: { app: "a", atLeast: "lots" }"#),
      #"steps[0].expect.memory.atLeast: expected a size such as 512M or 1.5G (written: "lots")"#
    ),
    (
      expect(#"event: { app: "a", name: "dance" }"#),
      #"steps[0].expect.event.name: "dance" is not a lifecycle event (didFinishLaunching, willEnterForeground, didBecomeActive, willResignActive, didEnterBackground, memoryWarning, backgroundTaskWillExpire, willTerminate)"#
    ),
    (
      expect(#"acknowledged: { app: "a", name: 5 }"#),
      #"steps[0].expect.acknowledged.name: expected a string (written: 5)"#
    ),
    (
      expect(#"event: { app: "d", name: "didEnterBackground" }"#),
      #"steps[0].expect.event.app: no app "d" in apps (known: a, b, c1, c2)"#
    ),
    // Scenario-wide checks.
    (top("steps: [], expect: 5"), #"expect: expected an object (written: 5)"#),
    (
      top("steps: [], expect: { colour: 1 }"),
      #"expect.colour: unknown key (known keys: noUnexpectedExits, timeLimit) (written: 1)"#
    ),
    (
      top(#"steps: [], expect: { noUnexpectedExits: "yes" }"#),
      #"expect.noUnexpectedExits: expected true or false (written: "yes")"#
    ),
    (
      top(#"steps: [], expect: { timeLimit: "x" }"#),
      #"expect.timeLimit: expected a duration such as 500ms, 10s or 2m (written: "x")"#
    ),
    // A chaos session.
    (top("chaos: 5"), #"chaos: expected an object (written: 5)"#),
    (top("chaos: {}"), #"chaos: duration: missing (how long the session lasts) (written: {})"#),
    (
      top(#"chaos: { duration: "x" }"#), #"chaos.duration: expected a duration such as 500ms, 10s or 2m (written: "x")"#
    ),
    (chaos("seed: -1"), #"chaos.seed: expected a whole number, 0 or more (written: -1)"#),
    (chaos("seed: 1.5"), #"chaos.seed: expected a whole number, 0 or more (written: 1.5)"#),
    (chaos(#"apps: ["d"]"#), #"chaos.apps[0]: no app "d" in apps (known: a, b, c1, c2)"#),
    (chaos("apps: 5"), #"chaos.apps: expected an app name or a list of them (written: 5)"#),
    (
      chaos("colour: 1"),
      #"chaos.colour: unknown key (known keys: apps, duration, kills, seed, spikes, usage, wakes) (written: 1)"#
    ),
    (chaos("usage: 5"), #"chaos.usage: expected an object (written: 5)"#),
    (chaos(#"usage: { dwell: ["2s", "1s"] }"#), #"chaos.usage.dwell: expected 0 < low ≤ high (written: ["2s", "1s"])"#),
    (
      chaos("usage: { dwell: [1, 2, 3] }"),
      #"chaos.usage.dwell: expected one value or [low, high] (written: [1, 2, 3])"#
    ),
    (chaos(#"usage: { dwell: "0s" }"#), #"chaos.usage.dwell: expected 0 < low ≤ high (written: "0s")"#),
    (
      chaos(#"usage: { dwell: ["1s", "x"] }"#),
      #"chaos.usage.dwell[1]: expected a duration such as 500ms, 10s or 2m (written: "x")"#
    ),
    (chaos("usage: { weights: 5 }"), #"chaos.usage.weights: expected an object of app weights (written: 5)"#),
    (chaos("usage: { weights: { d: 1 } }"), #"chaos.usage.weights.d: no app "d" in apps (known: a, b, c1, c2)"#),
    (chaos("usage: { weights: { a: -1 } }"), #"chaos.usage.weights.a: expected a weight of 0 or more (written: -1)"#),
    (chaos(#"usage: { weights: { a: "x" } }"#), #"chaos.usage.weights.a: expected a number (written: "x")"#),
    (
      chaos(#"usage: { weights: { "c{1..2}": 1 } }"#),
      #"chaos.usage.weights."c{1..2}": expected one app, not a range (written: 1)"#
    ),
    (
      chaos(#"apps: ["a"], usage: { weights: { b: 1 } }"#),
      #"chaos.usage.weights.b: no app "b" in apps (known: a) (written: 1)"#
    ),
    (chaos("usage: { home: 2 }"), #"chaos.usage.home: expected a chance from 0 to 1 (written: 2)"#),
    (chaos(#"usage: { home: "x" }"#), #"chaos.usage.home: expected a number (written: "x")"#),
    (
      chaos("usage: { colour: 1 }"), #"chaos.usage.colour: unknown key (known keys: dwell, home, weights) (written: 1)"#
    ),
    (chaos(#"spikes: { every: "1s" }"#), #"chaos.spikes: spikes need every, size and for (written: { every: "1s" })"#),
    (
      chaos(#"spikes: { every: "1s", size: ["2G", "1G"], for: "1s" }"#),
      #"chaos.spikes: a range's low is above its high (written: { every: "1s", size: ["2G", "1G"], for: "1s" })"#
    ),
    (
      chaos(#"spikes: { every: "0s", size: "1G", for: "1s" }"#), #"chaos.spikes.every: must be above 0 (written: "0s")"#
    ),
    (
      chaos(#"spikes: { every: "1s", size: "x", for: "1s" }"#),
      #"chaos.spikes.size: expected a size such as 512M or 1.5G (written: "x")"#
    ),
    (
      chaos(#"spikes: { every: "1s", size: "1G", for: ["1s"] }"#),
      #"chaos.spikes.for: expected one value or [low, high] (written: ["1s"])"#
    ),
    (chaos("kills: {}"), #"chaos.kills: every: missing (written: {})"#),
    (
      chaos(#"kills: { every: "1s", reasons: ["x"] }"#),
      #"chaos.kills.reasons[0]: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: "x")"#
    ),
    (
      chaos(#"kills: { every: "1s", reasons: [5] }"#),
      #"chaos.kills.reasons[0]: not an exit reason (normalAppExit, abnormal, memoryResourceLimit, cpuResourceLimit, memoryPressure, badAccess, illegalInstruction, appWatchdog, suspendedWithLockedFile, backgroundTaskAssertionTimeout) (written: 5)"#
    ),
    (
      chaos(#"kills: { every: "1s", reasons: "x" }"#),
      #"chaos.kills.reasons: expected a list of exit reasons (written: "x")"#
    ),
    (chaos(#"kills: { every: "0s" }"#), #"chaos.kills.every: must be above 0 (written: "0s")"#),
    (chaos("wakes: {}"), #"chaos.wakes: every: missing (written: {})"#),
    (chaos(#"wakes: { every: "1s", apps: 0 }"#), #"chaos.wakes.apps: expected a whole number from 1 to 1000"#),
    (
      chaos(#"wakes: { every: "x" }"#),
      #"chaos.wakes.every: expected a duration such as 500ms, 10s or 2m (written: "x")"#
    ),
    // Hosts.
    (
      top("steps: [], hosts: 5"),
      #"hosts: expected an object: host name → "ssh://[user@]host[:port][/socket]" (written: 5)"#
    ),
    (
      top(#"steps: [], hosts: { "bad name": "ssh://x" }"#),
      #"hosts."bad name": "bad name" is not a host name (letters, digits, - and _) (written: "ssh://x")"#
    ),
    (top("steps: [], hosts: { h: 5 }"), #"hosts.h: expected a string (written: 5)"#),
    (top(#"steps: [], hosts: { h: "http://x" }"#), #"hosts.h: h: "http://x" does not begin with ssh://"#),
    (
      top(#"chaos: { duration: "1s" }, hosts: { h: "ssh://x" }"#),
      #"chaos: a chaos session runs on one daemon, not across hosts (written: { duration: "1s" })"#
    ),
    // Several errors: the file's own keys are read, in order, before its profile and its config are checked; an
    // object's unknown key is refused before any of its values.
    (
      top(#"device: "no-such-profile", steps: [ { pressure: "extreme" } ]"#),
      #"steps[0].pressure: "extreme" is not a level (normal, warning, urgent, critical, clear)"#
    ),
    (
      top(#"config: { timeScale: Infinity }, steps: [ { pressure: "extreme" } ]"#),
      #"steps[0].pressure: "extreme" is not a level (normal, warning, urgent, critical, clear)"#
    ),
    (
      steps(#"{ suspend: "d" }, { pressure: "extreme" }"#),
      #"steps[0].suspend: no app "d" in apps (known: a, b, c1, c2)"#
    ),
    (
      steps(#"{ launch: "a", inBackground: "yes", colour: 1 }"#),
      #"steps[0].colour: unknown key (known keys: activate, allocate, background, charging, exercise, expect, fails, for, host, inBackground, kill, launch, pressure, ramp, reason, relaunch, release, resume, spike, suspend, terminate, wait, within) (written: 1)"#
    ),
    (
      top(#"name: 5, colour: 1, steps: []"#),
      #"colour: unknown key (known keys: apps, chaos, config, device, expect, hosts, name, steps) (written: 1)"#
    ),
  ]

  @Test("a scenario that cannot run is refused, naming the file, the key path and why", arguments: refusals)
  func refusal(text: String, expected: String) throws {
    let directory = NSTemporaryDirectory() + "jetsam-scenario-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "{\n  device: { ram: -Infinity },\n}".write(
      toFile: directory + "/profile.json5", atomically: true, encoding: .utf8)
    try "{ device: ".write(toFile: directory + "/broken.json5", atomically: true, encoding: .utf8)
    let bytes = Array(text.replacing("DIR", with: directory).utf8)
    let error = #expect(throws: ScenarioError.self) {
      try ScenarioLoader.parse(bytes: bytes, file: "bad.json5", profileDirectories: [directory])
    }
    #expect(error?.description == "bad.json5: " + expected.replacing("DIR", with: directory))
    #expect(error?.namesPlace == true)
  }

  @Test("every lab in labs/ loads, its profile found in config/profiles")
  func labs() throws {
    let labs = Binaries.packageRoot + "/labs/"
    let files = try FileManager.default.contentsOfDirectory(atPath: labs).filter { $0.hasSuffix(".json5") }
    #expect(files.count >= 7)
    for file in files {
      #expect(throws: Never.self, "\(file)") {
        try ScenarioLoader.load(path: labs + file, profileDirectories: [Binaries.packageRoot + "/config/profiles"])
      }
    }
  }

  @Test("a scenario's values as written: apps and their ranges, every kind of step, expectations, chaos, hosts")
  func values() throws {
    let text = #"""
      {
        device: "phone-2g",
        config: { suspend: { backgroundGrace: "2s" } },
        apps: {
          notes: {
            command: ["jetsam-demo-app", "--x"], env: { K: "v" }, memoryLimit: "256M", cpuLimit: 50, band: "audio",
            acknowledgements: "always", ready: "true", digest: "cat d", digestValidFor: "30s",
            on: { didEnterBackground: "sync" }, exercise: "curl x",
          },
          "app{1..3}": { command: ["sleep", "9"] },
        },
        steps: [
          { launch: ["notes", "app{1..2}"], inBackground: true, within: "5s", host: "a" },
          { relaunch: "notes" }, { activate: "app3" }, { background: "notes" }, { suspend: ["app1", "app2"] },
          { resume: "app1" }, { terminate: "app{2..3}" }, { kill: "notes", reason: "appWatchdog" }, { wait: 1.5 },
          { pressure: "urgent" }, { pressure: "clear" }, { allocate: "1G" }, { release: true },
          { ramp: { to: "2G", over: "10s", steps: 4 } }, { spike: "512M", for: "2s" }, { charging: false },
          { exercise: "notes", fails: true },
          { expect: { exit: { app: "notes", reason: "memoryPressure", state: "suspended", launch: 2, lockedFile: "/x" } } },
          { expect: { exits: [{ app: "app1" }, { app: "app2" }] } }, { expect: { noExit: "app3" } },
          { expect: { restoration: { app: "notes", verdict: "match" } } },
          { expect: { resumption: { app: "notes", verdict: "stale" } } },
          { expect: { state: { app: "notes", is: "suspended" } } },
          { expect: { signpost: { app: "notes", name: "save", phase: "end" } } },
          { expect: { event: { app: "notes", name: "memoryWarning" } } },
          { expect: { acknowledged: { app: "notes", name: "didEnterBackground" } } },
          { expect: { memory: { app: "app1", atLeast: "64M" } } },
        ],
        expect: { noUnexpectedExits: true, timeLimit: "2m" },
      }
      """#
    let scenario = try ScenarioLoader.parse(
      bytes: Array(text.utf8), file: "all.json5", profileDirectories: [Binaries.packageRoot + "/config/profiles"])
    #expect(scenario.name == "all" && scenario.file == "all.json5")
    #expect(scenario.profile == Binaries.packageRoot + "/config/profiles/phone-2g.json5")
    #expect(scenario.config.keys.sorted() == ["suspend"])
    #expect(scenario.apps.keys.sorted() == ["app1", "app2", "app3", "notes"])
    #expect(scenario.apps["app2"] == LabApp(command: ["sleep", "9"]))
    let notes = try #require(scenario.apps["notes"])
    #expect(notes.command == ["jetsam-demo-app", "--x"] && notes.environment == ["K": "v"])
    #expect(notes.memoryLimit == 256 << 20 && notes.cpuLimit == 50 && notes.band == .audio)
    #expect(notes.acknowledgements == .always && notes.exercise == "curl x")
    #expect(notes.commands.ready == ["/bin/sh", "-c", "true"] && notes.commands.digest == ["/bin/sh", "-c", "cat d"])
    #expect(
      notes.commands.digestValidFor == 30 && notes.commands.hooks == ["didEnterBackground": ["/bin/sh", "-c", "sync"]])
    #expect(
      scenario.steps.map(\.title) == [
        "launch notes app1 app2 in the background", "activate notes", "activate app3", "background notes",
        "suspend app1 app2", "resume app1", "terminate app2 app3", "kill notes (appWatchdog)", "wait 1.5s",
        "pressure urgent", "pressure clear", "allocate 1G", "release the balloon", "ramp to 2G over 10s (4 steps)",
        "spike 512M for 2s", "charging off", "exercise notes (must fail)",
        "expect exit of notes (memoryPressure, in suspended, launch 2, holding /x)",
        "expect exits in order: app1, then app2", "expect no exit of app3", "expect restoration of notes is match",
        "expect resumption of notes is stale", "expect notes is suspended", "expect signpost save end of notes",
        "expect memoryWarning delivered to notes", "expect didEnterBackground acknowledged for notes",
        "expect app1 holds at least 64M",
      ])
    #expect(scenario.steps.map(\.location) == scenario.steps.indices.map { "steps[\($0)]" })
    #expect(scenario.steps[0].within == .seconds(5) && scenario.steps[0].host == "a")
    #expect(scenario.steps.dropFirst().allSatisfy { $0.within == nil && $0.host == nil })
    #expect(scenario.noUnexpectedExits && scenario.timeLimit == .seconds(120))
    #expect(scenario.chaos == nil && scenario.hosts.isEmpty)
  }

  @Test("a chaos session's settings, its defaults, and hosts by name")
  func chaosAndHosts() throws {
    let text = #"""
      {
        name: "session",
        apps: { "app{1..3}": { command: ["sleep", "9"] } },
        chaos: {
          seed: 7, duration: "1h", apps: ["app1", "app2"],
          usage: { dwell: ["1s", "6s"], weights: { app1: 3 }, home: 0.25 },
          spikes: { every: "45s", size: ["300M", "900M"], for: "2s" },
          kills: { every: "3m", reasons: ["appWatchdog"] },
          wakes: { every: "30s" },
        },
      }
      """#
    let scenario = try ScenarioLoader.parse(bytes: Array(text.utf8), file: "s.json5", profileDirectories: [])
    #expect(scenario.name == "session" && scenario.steps.isEmpty && scenario.profile == nil)
    let chaos = try #require(scenario.chaos)
    #expect(chaos.seed == 7 && chaos.duration == .seconds(3600) && chaos.apps == ["app1", "app2"])
    #expect(chaos.dwell == 1...6 && chaos.weights == ["app1": 3] && chaos.home == 0.25)
    #expect(chaos.spikes?.every == .seconds(45) && chaos.spikes?.size == (300 << 20)...(900 << 20))
    #expect(chaos.spikes?.length == 2...2)
    #expect(chaos.kills?.every == .seconds(180) && chaos.kills?.reasons == [.appWatchdog])
    #expect(chaos.wakes?.every == .seconds(30) && chaos.wakes?.apps == 3)

    let defaults = try ScenarioLoader.parse(
      bytes: Array(
        #"{ apps: { b: { command: ["x"] }, a: { command: ["x"] } }, chaos: { duration: 10, kills: { every: 5 } } }"#
          .utf8),
      file: "d.json5", profileDirectories: [])
    #expect(
      defaults.chaos?.apps == ["a", "b"] && defaults.chaos?.seed == nil
        && defaults.chaos?.kills?.reasons == [.memoryPressure])

    let hosts = try ScenarioLoader.parse(
      bytes: Array(
        #"{ apps: { a: { command: ["x"] } }, steps: [], hosts: { b: "ssh://root@10.0.0.2:2222", a: "ssh://10.0.0.1" } }"#
          .utf8),
      file: "h.json5", profileDirectories: [])
    #expect(hosts.hosts.map(\.name) == ["a", "b"])
    #expect(
      hosts.hosts.map(\.spec) == [
        "ssh://10.0.0.1/run/jetsam/jetsamd.sock", "ssh://root@10.0.0.2:2222/run/jetsam/jetsamd.sock",
      ])
  }
}
