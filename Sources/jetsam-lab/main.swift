import CJetsamShim
import Foundation
import Glibc
import JetsamConfig
import JetsamCore
import JetsamLab
import JetsamProtocol

/// jetsam-lab: runs lab scenarios against jetsamd and writes their reports (LABS.md).
let usage = """
  Usage: jetsam-lab check NAME [--output DIR] [--ready CMD] [--digest CMD [--digest-valid-for S]]
                              [--on EVENT=CMD]... [--exercise CMD] -- PROGRAM ARGS...
         jetsam-lab run FILE [--socket PATH] [--output DIR] [--profiles DIR] [--seed N] [--duration D] [--quiet]
                            [--host NAME=ssh://[user@]host[:port][/socket]]... [--ssh-config FILE]

  Runs the scenario in FILE (JSON5, see LABS.md) against a private jetsamd it starts (root), or a running one
  with --socket, and writes its reports (junit.xml, summary.json, trace.json, report.html) to DIR (default:
  jetsam-lab-reports/NAME-TIME). Prints each step as it ends and, at the end, where the reports are.
  A device profile the scenario names is looked up in DIR, then beside the scenario (profiles/), then in
  /etc/jetsam/profiles and the source tree's config/profiles. A chaos session prints its seed; --seed N replays
  it (the same actions at the same times), --duration D shortens or lengthens it (e.g. 30s).
  --host (repeatable; also the scenario's hosts) runs each step on the host it names (host: "NAME"), on the
  jetsamd already running there, reached through ssh's forwarding of its control socket (default
  \(LabHost.defaultSocket)); --ssh-config FILE is ssh's -F (keys, known hosts). One report across the hosts.

  check puts one program through the standard battery (about 30 s, on a private jetsamd with short deadlines):
  it starts; each lifecycle event it acknowledges within its deadline; a memory warning survived without growing;
  background, suspend, memory-pressure kill, relaunch (its restoration verdict); background tasks ended and CPU
  within budget in the background; back from a long suspension (its staleness verdict); relaunch after a crash;
  willTerminate. It prints a report card, one line per check, and writes the same reports as run.
  A check that cannot judge the program (it speaks no protocol and no command speaks for it) is SKIP, not PASS.

  For a program that does not speak the protocol, commands (each a shell line, run by /bin/sh -c) speak for it,
  handed to jetsamd with each launch as jetsamctl launch takes them (PROTOCOL.md); the card notes each check judged
  through them, e.g. (through --ready):
    --ready CMD           it is up once CMD exits 0 (acknowledges didFinishLaunching)
    --digest CMD          prints a digest of the state it holds (e.g. redis-cli -p 6380 DEBUG DIGEST): the
                          restoration check compares the one saved at didEnterBackground with the relaunch's
    --digest-valid-for S  that state stays current S seconds: the staleness check judges it too
    --on EVENT=CMD        run CMD when EVENT is delivered; its exit acknowledges it (repeatable), e.g.
                          --on didEnterBackground="redis-cli -p 6380 SAVE"
    --exercise CMD        what a user does (e.g. redis-cli -p 6380 SET k v): run by jetsam-lab after each launch
                          is active (and up, with --ready), so that there is state to lose; killed after 10 s

  Exit status: 0 every expectation held, 1 some did not (or a step failed), 2 the scenario cannot run, 64 misuse.
  """

struct Arguments {
  /// `run` or `check`.
  var command: String
  /// run: the scenario; check: the app's name.
  var file: String
  /// check: the program and its arguments.
  var program: [String] = []
  /// check: the commands that speak for the program, and the exercise.
  var commands = ProgramCommands()
  var exercise: String?
  var socket: String?
  var output: String?
  var profiles: String?
  var seed: UInt64?
  var duration: Duration?
  var quiet = false
  var hosts: [LabHost] = []
  var sshConfig: String?

  init(_ words: [String]) throws {
    if words.first == "-h" || words.first == "--help" {
      print(usage)
      LabInterruption.exit(0)
    }
    guard let command = words.first, command == "run" || command == "check" else {
      throw UsageError(words.isEmpty ? "no command given" : "unknown command \"\(words[0])\"")
    }
    self.command = command
    var file: String?
    // check's command options, as given (each a shell line): parsed as jetsamctl launch parses them.
    var commandOptions: [String: [String]] = [:]
    var index = 1
    while index < words.count {
      let word = words[index]
      switch word {
      case "--socket", "--output", "--profiles", "--seed", "--duration", "--host", "--ssh-config":
        guard index + 1 < words.count else { throw UsageError("\(word) needs a value") }
        let value = words[index + 1]
        switch word {
        case "--socket": socket = value
        case "--output": output = value
        case "--host":
          do {
            let host = try LabHost(option: value)
            guard !hosts.contains(where: { $0.name == host.name }) else {
              throw UsageError("--host: \"\(host.name)\" is given twice")
            }
            hosts.append(host)
          } catch let error as LabHostError {
            throw UsageError("--host: \(error.description)")
          }
        case "--ssh-config": sshConfig = value
        case "--seed":
          guard let number = UInt64(value) else { throw UsageError("--seed: \"\(value)\" is not a whole number") }
          seed = number
        case "--duration":
          guard let parsed = ConfigDuration(parsing: value), parsed.duration > .zero else {
            throw UsageError("--duration: \"\(value)\" is not a duration such as 30s or 10m")
          }
          duration = parsed.duration
        default: profiles = value
        }
        index += 1
      case _ where ProgramCommands.options.contains(word) || word == "--exercise":
        guard command == "check" else { throw UsageError("\(word) is check's (run's apps are its scenario's)") }
        guard index + 1 < words.count else { throw UsageError("\(word) needs a value") }
        commandOptions[word, default: []].append(words[index + 1])
        index += 1
      case "--quiet": quiet = true
      case "--" where command == "check":
        program = Array(words[(index + 1)...])
        index = words.count
        continue
      case "-h", "--help":
        print(usage)
        LabInterruption.exit(0)
      default:
        guard !word.hasPrefix("-"), file == nil else { throw UsageError("unexpected argument \(word)") }
        file = word
      }
      index += 1
    }
    guard let file else { throw UsageError(command == "run" ? "run needs a scenario FILE" : "check needs an app NAME") }
    if socket != nil, !hosts.isEmpty {
      throw UsageError("--socket and --host: a lab runs on one local daemon or across hosts, not both")
    }
    if command == "check" {
      guard !program.isEmpty else { throw UsageError("check needs the program after --: -- CMD ARGS...") }
      // The battery runs on a daemon of its own, with no scenario: these would be silently ignored.
      guard socket == nil, profiles == nil, seed == nil, duration == nil, !quiet, hosts.isEmpty, sshConfig == nil else {
        throw UsageError(
          "check takes only --output (--socket, --profiles, --seed, --duration, --quiet, --host and --ssh-config are run's)"
        )
      }
      do {
        commands = try ProgramCommands(options: commandOptions)
      } catch {
        throw UsageError(error.message)
      }
      if let line = commandOptions["--exercise"]?.last {
        guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else {
          throw UsageError("--exercise: the command is empty")
        }
        exercise = line
      }
    }
    self.file = file
  }
}

struct UsageError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

func fail(_ message: String, status: Int32) -> Never {
  // Interrupted, the run fails for want of its jetsamd: that is no news.
  if !LabInterruption.isInterrupted { FileHandle.standardError.write(Data("jetsam-lab: \(message)\n".utf8)) }
  LabInterruption.exit(status)
}

/// The directory this program is in: jetsamd and the other programs of jetsam are beside it.
func binDirectory() -> String {
  let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  return URL(fileURLWithPath: path).deletingLastPathComponent().path
}

jetsam_stdout_line_buffered()
jetsam_reset_interrupt_signals()
LabInterruption.install()
let arguments: Arguments
do {
  arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
  fail("\(error.message)\n\n\(usage)", status: 64)
}
let bin = binDirectory()
let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
  .replacingOccurrences(of: ":", with: "")

/// Writes the run's reports and prints the outcome; the exit status.
func finish(_ run: LabRun, in runDirectory: String) -> Int32 {
  do {
    _ = try LabReports.write(run, to: runDirectory)
  } catch {
    fail("writing the reports to \(runDirectory): \(error)", status: 2)
  }
  let failures = run.failures
  let skipped = run.steps.count { $0.outcome == .skipped }
  print(
    "jetsam-lab: \(run.passed ? "passed" : "FAILED"): \(run.steps.count(where: \.isExpectation)) expectations, "
      + "\(failures.count) failed\(skipped > 0 ? ", \(skipped) skipped" : ""); \(run.exits.count) exits in "
      + String(format: "%.1f", run.durationSeconds) + "s")
  for failure in failures { print("  \(failure.location) \(failure.title): \(failure.message ?? "")") }
  for (who, usage) in [("jetsam-lab", run.resources?.runner), ("jetsamd", run.resources?.daemon)] {
    guard let usage else { continue }
    print(
      String(
        format: "jetsam-lab: %@ used %.2f s of CPU (%.2f%% of one core), at most %@ of memory", who, usage.cpuSeconds,
        usage.cpuSeconds / max(run.durationSeconds, 0.001) * 100, ByteSize.format(usage.peakRSSBytes)))
  }
  return run.passed ? 0 : 1
}

if arguments.command == "check" {
  let runDirectory = URL(fileURLWithPath: arguments.output ?? "jetsam-lab-reports/check-\(arguments.file)-\(stamp)")
    .standardized.path
  let battery = CheckBattery(
    name: arguments.file, command: arguments.program, commands: arguments.commands, exercise: arguments.exercise,
    options: LabRunner.Options(socket: nil, binDirectory: bin, runDirectory: runDirectory))
  print("jetsam-lab check \(arguments.file): \(arguments.program.joined(separator: " "))")
  battery.onCheck = { check in
    guard !LabInterruption.isInterrupted else { return }
    let mark = ["passed": "PASS", "failed": "FAIL", "error": "ERR ", "skipped": "SKIP"][check.outcome.rawValue]!
    let location = check.location.padding(toLength: max(34, check.location.count), withPad: " ", startingAt: 0)
    print("  \(mark)  \(location)  \(check.message ?? check.evidence ?? "")\(check.throughNote)")
  }
  let run: LabRun
  do {
    run = try battery.run()
  } catch {
    fail("\(error)", status: 2)
  }
  // The card's last lines: what jetsamd measured of the app (launch, resume and hang times, signposts).
  for line in run.launchFigureLines { print("  METRICS  \(line)") }
  let status = finish(run, in: runDirectory)
  print("jetsam-lab: reports in \(runDirectory)")
  LabInterruption.exit(status)
}
// Profiles: beside the scenario (its profiles/), then the installed ones, then those of the source tree this
// program was built in (a few levels above .build/…/debug).
var profileDirectories =
  (arguments.profiles.map { [$0] } ?? []) + [directoryPart(of: arguments.file) + "/profiles", "/etc/jetsam/profiles"]
var above = URL(fileURLWithPath: bin)
for _ in 0..<4 {
  above.deleteLastPathComponent()
  if FileManager.default.fileExists(atPath: above.path + "/config/profiles") {
    profileDirectories.append(above.path + "/config/profiles")
    break
  }
}
let scenario: Scenario
do {
  scenario = try ScenarioLoader.load(path: arguments.file, profileDirectories: profileDirectories)
} catch {
  fail("\(error)", status: 2)
}
let output = arguments.output ?? "jetsam-lab-reports/\(scenario.name)-\(stamp)"
let runDirectory = URL(fileURLWithPath: output).standardized.path
var options = LabRunner.Options(socket: arguments.socket, binDirectory: bin, runDirectory: runDirectory)
options.seed = arguments.seed
options.chaosDuration = arguments.duration
options.hosts = arguments.hosts
options.sshConfig = arguments.sshConfig
let runner = LabRunner(
  scenario: scenario, scenarioPath: URL(fileURLWithPath: arguments.file).standardized.path, options: options)
var chaosSeed: UInt64?
runner.onChaos = { seed in
  chaosSeed = seed
  if !arguments.quiet { print("jetsam-lab: chaos session, seed \(seed)") }
}
if !arguments.quiet {
  print("jetsam-lab: \(scenario.name) (\(scenario.file)), \(scenario.steps.count) steps")
  runner.onStep = { step in
    guard !LabInterruption.isInterrupted else { return }
    let mark = step.outcome == .passed ? "ok  " : step.outcome == .failed ? "FAIL" : "ERR "
    var line = String(format: "%@ %7.3fs  %@ %@", mark, step.startSeconds, step.location, step.title)
    if let message = step.message { line += "\n       \(message)" }
    print(line)
  }
}
let run: LabRun
do {
  run = try runner.run()
} catch {
  fail("\(error)", status: 2)
}
let status = finish(run, in: runDirectory)
if let seed = chaosSeed, !run.passed {
  print("jetsam-lab: replay this chaos session with: jetsam-lab run \(arguments.file) --seed \(seed)")
}
if let hosts = run.hosts {
  for host in hosts {
    print(
      "jetsam-lab: host \(host.name) \(host.spec): "
        + (host.clock.map { "clock \($0.text)" } ?? "unreached") + (host.problem.map { "; \($0)" } ?? ""))
  }
}
print("jetsam-lab: reports in \(runDirectory)")
LabInterruption.exit(status)
