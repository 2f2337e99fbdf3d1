import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamConfig
import JetsamCore
import JetsamShell
import JetsamValues

/// jetsamd's command line.
let usage = """
  Usage: jetsamd [options]

  The jetsam supervisor: runs programs as apps in their own cgroups, suspends them like a phone does, and kills
  them in jetsam's order when the emulated device runs short of memory.

  Options:
    --config FILE      configuration file (JSON5; default /etc/jetsam/jetsamd.json5 if it exists)
    --profile NAME     device profile: a file, or a name in the profiles directory beside the config
    --socket PATH      control socket path (default <runtimeDirectory>/jetsamd.sock)
    --state-dir DIR    where exit records and app logs are kept (default from the config)
    --spawner SOCKET   start apps through the spawner service at SOCKET (jetsam-spawner; default from the
                       config's spawnerSocket, else jetsamd starts them itself)
    --foreground       log to stderr for a terminal (default when not under systemd)
    --exit-with-parent stop (as on SIGTERM: end the apps, remove the cgroups) when the process that started
                       jetsamd ends, however it ends (jetsam-lab's private jetsamd)
    --verbose          log debug messages too
    --check-config     validate the configuration and exit
    --version          print the version and exit
    -h, --help         show this help
  """

func fail(_ message: String, code: Int32 = 64) -> Never {
  let line = Array("jetsamd: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  exit(code)
}

/// What the command line asked for.
struct CommandLineChoices {
  var configPath: String?
  var profile: String?
  var options = DaemonOptions()
  var checkOnly = false
}

func parseCommandLine() -> CommandLineChoices {
  var choices = CommandLineChoices()
  var arguments = CommandLine.arguments.dropFirst()
  func value(for option: String) -> String {
    guard let value = arguments.popFirst() else { fail("\(option) needs a value\n\n\(usage)") }
    return value
  }
  while let argument = arguments.popFirst() {
    switch argument {
    case "--config": choices.configPath = value(for: argument)
    case "--profile": choices.profile = value(for: argument)
    case "--socket": choices.options.socketPath = value(for: argument)
    case "--state-dir": choices.options.stateDirectory = value(for: argument)
    case "--spawner": choices.options.spawnerSocket = value(for: argument)
    case "--foreground": choices.options.logger.journalPrefix = false
    case "--exit-with-parent": choices.options.exitWithParent = true
    case "--verbose": choices.options.logger.threshold = .debug
    case "--check-config": choices.checkOnly = true
    case "--version":
      print("jetsamd \(Daemon.version)")
      exit(0)
    case "-h", "--help":
      print(usage)
      exit(0)
    default: fail("unknown option \(argument)\n\n\(usage)")
    }
  }
  return choices
}

var choices = parseCommandLine()
var configPath = choices.configPath
var options = choices.options
let checkOnly = choices.checkOnly
let profile = choices.profile
// Under systemd (journald on stderr), lines carry <N> priority prefixes.
if ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil && !CommandLine.arguments.contains("--foreground") {
  options.logger.journalPrefix = true
}
if configPath == nil && FileManager.default.fileExists(atPath: "/etc/jetsam/jetsamd.json5") {
  configPath = "/etc/jetsam/jetsamd.json5"
}
var profilePath: String? = profile
if let name = profile, !name.contains("/") {
  let base = configPath.map { directoryPart(of: $0) } ?? "/etc/jetsam"
  profilePath = "\(base)/profiles/\(name).json5"
}

let config: DaemonConfig
do {
  config = try ConfigLoader.load(path: configPath, profile: profilePath)
} catch {
  fail("\(error)", code: 78)  // EX_CONFIG
}
if checkOnly {
  print("\(configPath ?? "built-in defaults")\(profilePath.map { " + " + $0 } ?? ""): OK (\(config.apps.count) app(s))")
  exit(0)
}

// Signals the loop handles must be blocked before any thread exists (sd-event reads them from a signalfd).
let handled = [Signal.terminate, .interrupt, .hangup, .childStatusChanged].map(\.rawValue)
_ = handled.withUnsafeBufferPointer { jetsam_block_signals($0.baseAddress, Int32($0.count)) }
signal(SIGPIPE, SIG_IGN)

options.configPath = configPath
options.profilePath = profilePath
do {
  let daemon = try Daemon(config: config, options: options)
  exit(try daemon.run())
} catch {
  fail("\(error)", code: 1)
}
