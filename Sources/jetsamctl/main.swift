import CJetsamShim
import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamProtocol

/// jetsamctl: a thin client; every decision is the daemon's.
struct Invocation {
  var socket = ProcessInfo.processInfo.environment["JETSAM_SOCKET"] ?? "/run/jetsam/jetsamd.sock"
  var json = false
  var verb = ""
  var rest: [String] = []
}

func parseGlobal(_ arguments: [String]) throws -> Invocation {
  var invocation = Invocation()
  var index = 0
  while index < arguments.count {
    let argument = arguments[index]
    switch argument {
    case "--socket":
      guard index + 1 < arguments.count else { throw CLIError.usage("--socket needs a path") }
      invocation.socket = arguments[index + 1]
      index += 2
    case "--json":
      invocation.json = true
      index += 1
    case "-h", "--help":
      print(Help.main)
      exit(0)
    default:
      if argument.hasPrefix("-") { throw CLIError.usage("unknown option \(argument)") }
      invocation.verb = argument
      // Verb arguments; --json may still appear among them.
      for rest in arguments[(index + 1)...] {
        if rest == "--json" && !invocation.rest.contains("--") {
          invocation.json = true
        } else {
          invocation.rest.append(rest)
        }
      }
      return invocation
    }
  }
  throw CLIError.usage("no verb given")
}

/// Splits verb arguments into options (with values) and positionals; `--` ends options.
struct VerbArguments {
  var positional: [String] = []
  var options: [String: [String]] = [:]
  var flags: Set<String> = []
  var trailing: [String]? = nil

  init(_ arguments: [String], valued: Set<String>, flags allowed: Set<String>, verb: String) throws {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--" {
        trailing = Array(arguments[(index + 1)...])
        return
      } else if argument == "-h" || argument == "--help" {
        print(Help.verbs[verb] ?? Help.main)
        exit(0)
      } else if valued.contains(argument) {
        guard index + 1 < arguments.count else { throw CLIError.usage("\(verb): \(argument) needs a value") }
        options[argument, default: []].append(arguments[index + 1])
        index += 2
        continue
      } else if allowed.contains(argument) {
        flags.insert(argument)
      } else if argument.hasPrefix("-") {
        throw CLIError.usage("\(verb): unknown option \(argument)")
      } else {
        positional.append(argument)
      }
      index += 1
    }
  }

  func one(_ option: String) -> String? { options[option]?.last }
}

func requireName(_ args: VerbArguments, _ verb: String) throws -> String {
  guard args.positional.count == 1 else {
    throw CLIError.usage("\(verb) takes exactly one app name\n\n\(Help.verbs[verb] ?? "")")
  }
  return args.positional[0]
}

func parseSize(_ text: String, _ what: String) throws -> Int64 {
  guard let size = ByteSize(parsing: text) else {
    throw CLIError.usage("\(what): \"\(text)\" is not a size (e.g. 512M, 2G, bytes)")
  }
  return size.bytes
}

/// RFC 3339 as is, or a relative `10m`/`2h`/`30s`/`1d` turned into an RFC 3339 time that long ago.
func parseTime(_ text: String) throws -> String {
  if (try? Date(text, strategy: Date.ISO8601FormatStyle())) != nil { return text }
  if (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) != nil { return text }
  let digits = text.prefix { $0.isNumber }
  let scale: Double? = ["s": 1, "m": 60, "h": 3600, "d": 86400][String(text.dropFirst(digits.count))]
  guard let value = Double(digits), let scale else {
    throw CLIError.usage("--since: \"\(text)\" is neither RFC 3339 nor a relative time like 10m")
  }
  return Date(timeIntervalSinceNow: -value * scale).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

/// Seconds between memory samples of `watch` and `top`.
func parseInterval(_ text: String) throws -> Double {
  guard let seconds = Double(text), seconds >= 0.05, seconds <= 60 else {
    throw CLIError.usage("--interval: \"\(text)\" is not a number of seconds from 0.05 to 60")
  }
  return seconds
}

func buildRequest(_ invocation: Invocation) throws -> ControlRequest {
  let verbName = invocation.verb
  guard let verb = ControlVerb(rawValue: verbName) else {
    throw CLIError.usage("unknown verb \"\(verbName)\"\n\n\(Help.main)")
  }
  switch verb {
  case .launch:
    let args = try VerbArguments(
      invocation.rest,
      valued: Set([
        "--memory-limit", "--cpu-limit", "--band", "--env", "--acknowledgements", "--locked-files", "--sockets",
      ]).union(ProgramCommands.options),
      flags: ["--background"], verb: verbName)
    var request = ControlRequest(verb: .launch, app: try requireName(args, verbName))
    request.command = args.trailing
    if let memory = args.one("--memory-limit") { request.memoryLimit = try parseSize(memory, "--memory-limit") }
    if let cpu = args.one("--cpu-limit") {
      guard let value = Double(cpu.hasSuffix("%") ? String(cpu.dropLast()) : cpu), value > 0 else {
        throw CLIError.usage("--cpu-limit: \"\(cpu)\" is not a positive percentage")
      }
      request.cpuLimit = value
    }
    if let band = args.one("--band") {
      guard let parsed = Band(name: band) else {
        throw CLIError.usage("--band: \"\(band)\" is not a band (idle, background, mail, foreground, audio, critical)")
      }
      request.band = parsed
    }
    for pair in args.options["--env"] ?? [] {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw CLIError.usage("--env: \"\(pair)\" is not K=V")
      }
      request.env = (request.env ?? [:]).merging([String(pair[..<eq]): String(pair[pair.index(after: eq)...])]) { $1 }
    }
    if args.flags.contains("--background") { request.background = true }
    if let mode = args.one("--acknowledgements") {
      guard let parsed = AcknowledgementMode(rawValue: mode) else {
        throw CLIError.usage("--acknowledgements: \"\(mode)\" is not a mode (auto, always, never)")
      }
      request.acknowledgements = parsed
    }
    if let action = args.one("--locked-files") {
      guard let parsed = LockedFileAction(rawValue: action) else {
        throw CLIError.usage("--locked-files: \"\(action)\" is not an action (kill, defer, ignore)")
      }
      request.lockedFiles = parsed
    }
    if let fate = args.one("--sockets") {
      guard let parsed = SocketsAtSuspension(rawValue: fate) else {
        throw CLIError.usage("--sockets: \"\(fate)\" is not what becomes of sockets at suspension (defunct, keep)")
      }
      request.sockets = parsed
    }
    do {
      try ProgramCommands(options: args.options).apply(to: &request)
    } catch {
      throw CLIError.usage(error.message)
    }
    return request
  case .activate:
    let args = try VerbArguments(invocation.rest, valued: [], flags: [], verb: verbName)
    return ControlRequest(verb: verb, app: try requireName(args, verbName))
  case .background, .suspend, .resume, .terminate:
    // Several names are sent as one request: applied all or nothing, carried out together.
    let args = try VerbArguments(invocation.rest, valued: [], flags: [], verb: verbName)
    guard !args.positional.isEmpty else {
      throw CLIError.usage("\(verbName) needs at least one app name\n\n\(Help.verbs[verbName] ?? "")")
    }
    var request = ControlRequest(verb: verb)
    if args.positional.count == 1 { request.app = args.positional[0] } else { request.apps = args.positional }
    return request
  case .kill:
    let args = try VerbArguments(invocation.rest, valued: ["--reason"], flags: [], verb: verbName)
    var request = ControlRequest(verb: .kill, app: try requireName(args, verbName))
    if let reason = args.one("--reason") {
      guard let parsed = ExitReason(rawValue: reason) else {
        throw CLIError.usage(
          "--reason: \"\(reason)\" is not an exit reason (\(ExitReason.allCases.map(\.rawValue).joined(separator: ", ")))"
        )
      }
      request.reason = parsed
    }
    return request
  case .debugFreeze:
    return ControlRequest(verb: .debugFreeze)
  case .ps, .status:
    let args = try VerbArguments(invocation.rest, valued: [], flags: [], verb: verbName)
    guard args.positional.isEmpty else { throw CLIError.usage("\(verbName) takes no arguments") }
    return ControlRequest(verb: verb)
  case .exits:
    let args = try VerbArguments(
      invocation.rest, valued: ["--app", "--since", "--limit"], flags: ["--follow", "--verdicts"], verb: verbName)
    guard args.positional.isEmpty else { throw CLIError.usage("exits takes no positional arguments (use --app NAME)") }
    var request = ControlRequest(verb: .exits, app: args.one("--app"))
    if let since = args.one("--since") { request.since = try parseTime(since) }
    if args.flags.contains("--follow") { request.follow = true }
    if args.flags.contains("--verdicts") { request.verdicts = true }
    if let limit = args.one("--limit") {
      guard let count = Int(limit), count > 0 else {
        throw CLIError.usage("--limit: \"\(limit)\" is not a count of records (1 or more)")
      }
      request.limit = count
    }
    return request
  case .metrics, .diagnostics:
    let args = try VerbArguments(
      invocation.rest, valued: ["--app", "--since"], flags: verb == .metrics ? ["--prometheus"] : [], verb: verbName)
    guard args.positional.isEmpty else {
      throw CLIError.usage("\(verbName) takes no positional arguments (use --app NAME)")
    }
    var request = ControlRequest(verb: verb, app: args.one("--app"))
    if let since = args.one("--since") { request.since = try parseTime(since) }
    if args.flags.contains("--prometheus") {
      guard request.app == nil, request.since == nil else {
        throw CLIError.usage("metrics --prometheus shows everything, now: it takes no --app or --since")
      }
      request.format = "prometheus"
    }
    return request
  case .watch:
    let args = try VerbArguments(invocation.rest, valued: ["--interval"], flags: [], verb: verbName)
    guard args.positional.isEmpty else { throw CLIError.usage("watch takes no positional arguments") }
    var request = ControlRequest(verb: .watch)
    if let interval = args.one("--interval") { request.interval = try parseInterval(interval) }
    return request
  case .device:
    let args = try VerbArguments(invocation.rest, valued: [], flags: [], verb: verbName)
    var request = ControlRequest(verb: .device)
    switch args.positional {
    case []: break
    case ["charging", "on"]: request.charging = true
    case ["charging", "off"]: request.charging = false
    default: throw CLIError.usage("device: expected nothing or `charging on|off`\n\n\(Help.verbs["device"]!)")
    }
    return request
  case .pressure:
    let args = try VerbArguments(invocation.rest, valued: ["--timeout"], flags: ["--wait"], verb: verbName)
    var request = ControlRequest(verb: .pressure)
    if args.flags.contains("--wait") {
      request.wait = 30
      if let timeout = args.one("--timeout") {
        guard let seconds = Double(timeout), seconds > 0, seconds <= 3600 else {
          throw CLIError.usage("--timeout: \"\(timeout)\" is not a number of seconds from 0 to 3600")
        }
        request.wait = seconds
      }
    } else if args.one("--timeout") != nil {
      throw CLIError.usage("--timeout goes with --wait")
    }
    switch args.positional.first {
    case nil: request.action = "get"
    case "set":
      guard args.positional.count == 2, let level = PressureLevel(name: args.positional[1]) else {
        throw CLIError.usage("pressure set needs a level: normal, warning, urgent, critical")
      }
      request.action = "set"
      request.level = level
    case "clear", "release":
      guard args.positional.count == 1 else {
        throw CLIError.usage("pressure \(args.positional[0]) takes no arguments")
      }
      request.action = args.positional[0]
    case "allocate":
      guard args.positional.count == 2 else { throw CLIError.usage("pressure allocate needs a SIZE, e.g. 512M") }
      request.action = "allocate"
      request.size = try parseSize(args.positional[1], "pressure allocate")
    case let other?:
      throw CLIError.usage("pressure: unknown action \"\(other)\"\n\n\(Help.verbs["pressure"]!)")
    }
    if request.wait != nil && request.action != "allocate" && request.action != "set" {
      throw CLIError.usage("--wait goes with pressure allocate and pressure set")
    }
    return request
  }
}

let encoder: JSONEncoder = {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  return encoder
}()

func printJSON<T: Encodable>(_ value: T) {
  print(String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self))
}

func run() throws {
  let invocation = try parseGlobal(Array(CommandLine.arguments.dropFirst()))
  // Not a request of its own: a view made of `exits` and `watch` on one connection.
  if invocation.verb == "top" { return try Top(invocation).run() }
  let request = try buildRequest(invocation)
  let client = try ControlClient(path: invocation.socket)
  let response = try client.send(request)
  guard response.ok else {
    if invocation.json { printJSON(response) }
    throw CLIError.failed(response.error?.message ?? "request failed")
  }
  Output(json: invocation.json).show(response, for: request)
  if request.follow == true || request.verb == .watch {
    while let line = try client.nextResponse() {
      if let change = line.change {
        Output(json: invocation.json).show(change)
      } else if let record = line.record {
        Output(json: invocation.json).showExits([record], header: false, verdicts: request.verdicts == true)
      } else if !line.ok {
        // jetsamd's last line before it ends the stream (`tooMuchUnread`: this side read too slowly).
        if invocation.json { printJSON(line) }
        throw CLIError.failed(line.error?.message ?? "jetsamd ended the stream")
      }
    }
  }
}

// Line-buffered so that `exits --follow` lines reach a pipe as they come.
jetsam_stdout_line_buffered()
jetsam_reset_interrupt_signals()
do {
  try run()
} catch CLIError.usage(let message) {
  FileHandle.standardError.write(Data("jetsamctl: \(message)\n".utf8))
  exit(64)
} catch let error as ControlClientError {
  FileHandle.standardError.write(Data("jetsamctl: \(error)\n".utf8))
  exit(1)
} catch CLIError.failed(let message) {
  FileHandle.standardError.write(Data("jetsamctl: \(message)\n".utf8))
  exit(1)
} catch {
  FileHandle.standardError.write(Data("jetsamctl: \(error)\n".utf8))
  exit(1)
}
