import Foundation
import JetsamConfig
import JetsamCore
import JetsamProtocol

/// A scenario that cannot be run, naming the file, where in it (the key path, or for text that is not JSON5 the line
/// and column), and why, with the value as written:
/// `commute.json5: steps[3].pressure: "extreme" is not a level (normal, warning, urgent, critical, clear)`.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
  public var file: String
  public var path: String
  /// Where in the file, for an error that no key path can name (the text is not JSON5, or not UTF-8).
  public var line: Int?
  public var column: Int?
  public var reason: String
  public var description: String { path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)" }

  /// Whether the error says where in the file: a key path, or a line and column.
  public var namesPlace: Bool { !path.isEmpty || line != nil }

  init(file: String, path: String, reason: String) {
    self.file = file
    self.path = path
    self.reason = reason
  }
}

/// Reads scenario files (LABS.md documents the format).
public enum ScenarioLoader {
  /// Reads and checks the scenario at `path`; a device profile it names is looked up in `profileDirectories`, in
  /// order.
  public static func load(path: String, profileDirectories: [String]) throws(ScenarioError) -> Scenario {
    let file = lastPathComponent(of: path)
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ScenarioError(file: file, path: "", reason: "cannot read \(path)")
    }
    return try parse(bytes: Array(data), file: file, profileDirectories: profileDirectories)
  }

  /// Reads a scenario from the bytes of a file called `file`.
  public static func parse(bytes: [UInt8], file: String, profileDirectories: [String]) throws(ScenarioError)
    -> Scenario
  {
    let document: JSON5Document
    do {
      document = try JSON5Document(bytes: bytes, file: file)
    } catch {
      var failure = ScenarioError(file: file, path: error.keyPath, reason: error.reason)
      failure.line = error.line
      failure.column = error.column
      throw failure
    }
    var reader = TreeReader(document: document)
    do {
      return try reader.scenario(document.object, profileDirectories: profileDirectories)
    } catch let error as ScenarioError {
      throw error
    } catch {
      throw ScenarioError(file: file, path: "", reason: "\(error)")
    }
  }
}

/// Walks the JSON5 tree, keeping the path of what it reads for errors.
private struct TreeReader {
  let document: JSON5Document
  var file: String { document.file }
  /// Where the value being read is (``ConfigKeyPath``).
  var path = ""

  /// An error about the value being read, quoting it as written.
  func failure(_ reason: String) -> ScenarioError {
    ScenarioError(file: file, path: path, reason: document.reason(reason, at: path))
  }

  mutating func at<T>(_ key: String, _ read: (inout TreeReader) throws -> T) rethrows -> T {
    try within(ConfigKeyPath.appending(key, to: path), read)
  }

  mutating func at<T>(index: Int, _ read: (inout TreeReader) throws -> T) rethrows -> T {
    try within(ConfigKeyPath.appending(index: index, to: path), read)
  }

  private mutating func within<T>(_ inner: String, _ read: (inout TreeReader) throws -> T) rethrows -> T {
    let outer = path
    path = inner
    defer { path = outer }
    return try read(&self)
  }

  mutating func object(_ value: JSONTree, keys: Set<String>) throws -> [String: JSONTree] {
    guard case .object(let object) = value else { throw failure("expected an object") }
    if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
      throw at(unknown) { $0.failure("unknown key (known: \(keys.sorted().joined(separator: ", ")))") }
    }
    return object
  }

  func string(_ value: JSONTree) throws -> String {
    guard case .string(let text) = value else { throw failure("expected a string") }
    return text
  }

  func bool(_ value: JSONTree) throws -> Bool {
    guard case .bool(let flag) = value else { throw failure("expected true or false") }
    return flag
  }

  func integer(_ value: JSONTree, in range: ClosedRange<Int>) throws -> Int {
    guard case .integer(let number) = value, let int = Int(exactly: number), range.contains(int) else {
      throw failure("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return int
  }

  func number(_ value: JSONTree) throws -> Double {
    switch value {
    case .integer(let number): return Double(number)
    case .number(let number): return number
    default: throw failure("expected a number")
    }
  }

  /// One app name, or a list of them.
  func names(_ value: JSONTree, apps: Set<String>) throws -> [String] {
    let names: [String]
    switch value {
    case .string(let name): names = try expand(name)
    case .array(let items):
      names = try items.flatMap { item in try expand(try string(item)) }
      guard !names.isEmpty else { throw failure("expected at least one app") }
    default: throw failure("expected an app name or a list of them")
    }
    for name in names where !apps.contains(name) {
      throw failure("no app \"\(name)\" in apps (known: \(apps.sorted().joined(separator: ", ")))")
    }
    return names
  }

  func app(_ value: JSONTree, apps: Set<String>) throws -> String {
    guard case .string = value else { throw failure("expected an app name") }
    let named = try names(value, apps: apps)
    guard named.count == 1 else { throw failure("expected one app, not a range") }
    return named[0]
  }

  func duration(_ value: JSONTree) throws -> Duration {
    let parsed: ConfigDuration? =
      switch value {
      case .string(let text): ConfigDuration(parsing: text)
      case .integer(let seconds): ConfigDuration(parsing: String(seconds))
      case .number(let seconds): ConfigDuration(parsing: String(seconds))
      default: nil
      }
    guard let parsed else { throw failure("expected a duration such as 500ms, 10s or 2m") }
    return parsed.duration
  }

  func size(_ value: JSONTree) throws -> Int64 {
    let parsed: ByteSize? =
      switch value {
      case .string(let text): ByteSize(parsing: text)
      case .integer(let bytes): bytes > 0 ? ByteSize(bytes: bytes) : nil
      default: nil
      }
    guard let parsed, parsed.bytes > 0 else { throw failure("expected a size such as 512M or 1.5G") }
    return parsed.bytes
  }

  mutating func scenario(_ object: [String: JSONTree], profileDirectories: [String]) throws -> Scenario {
    let top = try self.object(
      .object(object), keys: ["name", "device", "config", "apps", "steps", "expect", "chaos", "hosts"])
    let name = try top["name"].map { value in try at("name") { try $0.string(value) } }
    let profile = try top["device"].map { value in
      try at("device") { reader in
        try reader.profile(try reader.string(value), directories: profileDirectories)
      }
    }
    var config: [String: JSONTree] = [:]
    if let value = top["config"] {
      guard case .object(let object) = value else {
        throw at("config") { $0.failure("expected an object (jetsamd's config)") }
      }
      for key in ["stateDirectory", "runtimeDirectory"] where object[key] != nil {
        throw at("config") { $0.at(key) { $0.failure("set by the lab (each run has its own)") } }
      }
      config = object
    }
    try checkConfig(config, profile: try profile.map { path in try at("device") { try $0.profileDocument(path) } })
    guard let appsValue = top["apps"] else { throw at("apps") { $0.failure("missing (the apps the steps start)") } }
    let apps = try at("apps") { reader in try reader.apps(appsValue) }
    let items: [JSONTree]
    switch top["steps"] {
    case .array(let list)?: items = list
    case nil where top["chaos"] != nil: items = []
    default: throw at("steps") { $0.failure("missing or not a list") }
    }
    var steps: [Step] = []
    for (index, item) in items.enumerated() {
      steps.append(
        try at("steps") { steps in
          try steps.at(index: index) { reader in
            try reader.step(item, location: "steps[\(index)]", apps: apps)
          }
        })
    }
    var noUnexpectedExits = false
    var timeLimit: Duration?
    if let value = top["expect"] {
      try at("expect") { reader in
        let expect = try reader.object(value, keys: ["noUnexpectedExits", "timeLimit"])
        if let flag = expect["noUnexpectedExits"] {
          noUnexpectedExits = try reader.at("noUnexpectedExits") { try $0.bool(flag) }
        }
        if let limit = expect["timeLimit"] { timeLimit = try reader.at("timeLimit") { try $0.duration(limit) } }
      }
    }
    let chaos = try top["chaos"].map { value in try at("chaos") { try $0.chaos(value, apps: apps.keys.sorted()) } }
    let fileName = file.split(separator: ".").first.map(String.init) ?? file
    var hosts: [LabHost] = []
    if let value = top["hosts"] {
      try at("hosts") { reader in
        guard case .object(let object) = value else {
          throw reader.failure("expected an object: host name → \"ssh://[user@]host[:port][/socket]\"")
        }
        for (name, url) in object.sorted(by: { $0.key < $1.key }) {
          try reader.at(name) { reader in
            do {
              hosts.append(try LabHost(name: name, url: try reader.string(url)))
            } catch let error as LabHostError {
              throw reader.failure(error.description)
            }
          }
        }
      }
    }
    if chaos != nil, !hosts.isEmpty {
      throw at("chaos") { $0.failure("a chaos session runs on one daemon, not across hosts") }
    }
    return Scenario(
      name: name ?? fileName, file: file, profile: profile, config: config, apps: apps, steps: steps,
      noUnexpectedExits: noUnexpectedExits, timeLimit: timeLimit, chaos: chaos, hosts: hosts)
  }

  /// A profile's file: a path as given, or a name looked up in `directories` (`phone-2g` → `phone-2g.json5`).
  func profile(_ name: String, directories: [String]) throws -> String {
    if name.contains("/") {
      guard FileManager.default.fileExists(atPath: name) else { throw failure("no profile file \(name)") }
      return name
    }
    for directory in directories where FileManager.default.fileExists(atPath: "\(directory)/\(name).json5") {
      return "\(directory)/\(name).json5"
    }
    throw failure("no profile \"\(name)\" (looked in \(directories.joined(separator: ", ")))")
  }

  /// The device profile at `path`, read as a config file is read.
  func profileDocument(_ path: String) throws -> JSON5Document {
    guard let bytes = FileManager.default.contents(atPath: path) else { throw failure("cannot read \(path)") }
    do {
      return try JSON5Document(bytes: Array(bytes), file: lastPathComponent(of: path))
    } catch {
      throw failure("\(error)")
    }
  }

  /// Checks the config the lab's jetsamd will run with as jetsamd checks it, so that an error names this file's key
  /// (`config.device.ram`), or the profile that `device` names, never the lab's generated `jetsamd.json5`.
  func checkConfig(_ config: [String: JSONTree], profile: JSON5Document?) throws {
    let merged = LabDaemon.config(profile: profile?.object ?? [:], scenario: config, directory: "/run/jetsam-lab")
    do throws(ConfigError) {
      _ = try ConfigLoader.decode(merged, label: file)
    } catch {
      let key = error.keyPath.isEmpty ? "config" : "config." + error.keyPath
      if let profile, !document.contains(key), profile.contains(error.keyPath) {
        throw ScenarioError(
          file: file, path: "device",
          reason: "\(profile.file): \(error.keyPath): \(profile.reason(error.reason, at: error.keyPath))")
      }
      throw ScenarioError(file: file, path: key, reason: document.reason(error.reason, at: key))
    }
  }

  /// The most apps a scenario may describe (after ranges are expanded).
  static let maxApps = 10_000

  mutating func apps(_ value: JSONTree) throws -> [String: LabApp] {
    guard case .object(let object) = value, !object.isEmpty else { throw failure("expected an object of apps") }
    var apps: [String: LabApp] = [:]
    for key in object.keys.sorted() {
      let app = try at(key) { reader in try reader.app(object[key]!) }
      // `app{1..200}` describes app1 … app200 at once.
      let names = try at(key) { try $0.expand(key) }
      for name in names {
        guard apps[name] == nil else { throw at(key) { $0.failure("\(name) is described twice") } }
        apps[name] = app
      }
      guard apps.count <= Self.maxApps else { throw failure("more than \(Self.maxApps) apps") }
    }
    return apps
  }

  /// The names a key stands for: itself, or, for `PREFIX{FIRST..LAST}SUFFIX`, one per number.
  func expand(_ key: String) throws -> [String] {
    guard let match = key.wholeMatch(of: /(.*)\{(\d+)\.\.(\d+)\}(.*)/) else { return [key] }
    guard let first = Int(match.2), let last = Int(match.3), first <= last, last - first < Self.maxApps else {
      throw failure("\(key): expected a range {FIRST..LAST} of at most \(Self.maxApps) numbers, FIRST ≤ LAST")
    }
    return (first...last).map { "\(match.1)\($0)\(match.4)" }
  }

  mutating func app(_ value: JSONTree) throws -> LabApp {
    let object = try self.object(
      value,
      keys: [
        "command", "env", "memoryLimit", "cpuLimit", "band", "acknowledgements", "ready", "digest", "digestValidFor",
        "on", "exercise",
      ])
    guard let commandValue = object["command"], case .array(let words) = commandValue, !words.isEmpty else {
      throw failure("command: missing or not a list of words")
    }
    var app = LabApp(
      command: try at("command") { reader in
        try words.map { word in try reader.string(word) }
      })
    if let env = object["env"] {
      try at("env") { reader in
        guard case .object(let pairs) = env else { throw reader.failure("expected an object of variables") }
        for (key, value) in pairs { app.environment[key] = try reader.at(key) { try $0.string(value) } }
      }
    }
    if let limit = object["memoryLimit"] { app.memoryLimit = try at("memoryLimit") { try $0.size(limit) } }
    if let limit = object["cpuLimit"] {
      app.cpuLimit = try at("cpuLimit") { reader in
        let percent = try reader.number(limit)
        guard percent >= 1, percent <= 100_000 else {
          throw reader.failure("expected a percentage of a core, 1 to 100000")
        }
        return percent
      }
    }
    if let band = object["band"] {
      app.band = try at("band") { reader in
        guard let parsed = Band(name: try reader.string(band)) else {
          throw reader.failure("not a band (idle, background, mail, foreground, audio, critical)")
        }
        return parsed
      }
    }
    if let mode = object["acknowledgements"] {
      app.acknowledgements = try at("acknowledgements") { reader in
        guard let parsed = AcknowledgementMode(rawValue: try reader.string(mode)) else {
          throw reader.failure("not a mode (auto, always, never)")
        }
        return parsed
      }
    }
    try programCommands(object, into: &app)
    return app
  }

  /// The commands that speak for the program, as `jetsamctl launch` takes them (`ready`, `digest`,
  /// `digestValidFor`, `on`: PROTOCOL.md), and its `exercise`; each command one shell line.
  mutating func programCommands(_ object: [String: JSONTree], into app: inout LabApp) throws {
    if let line = object["ready"] { app.commands.ready = try at("ready") { try $0.shellLine(line) } }
    if let line = object["digest"] {
      app.commands.digest = try at("digest") { reader in
        // The restored digest is taken once ready says the relaunched program is up: without it there is none.
        guard app.commands.ready != nil else { throw reader.failure("needs ready (the restored digest waits for it)") }
        return try reader.shellLine(line)
      }
    }
    if let validity = object["digestValidFor"] {
      app.commands.digestValidFor = try at("digestValidFor") { reader in
        guard app.commands.digest != nil else { throw reader.failure("needs digest (the state it says is fresh)") }
        let seconds = try reader.duration(validity).seconds
        guard seconds > 0 else { throw reader.failure("expected a duration above 0") }
        return seconds
      }
    }
    if let hooks = object["on"] {
      app.commands.hooks = try at("on") { reader in
        guard case .object(let pairs) = hooks, !pairs.isEmpty else {
          throw reader.failure("expected an object of lifecycle event → command, e.g. { didEnterBackground: \"…\" }")
        }
        var commands: [String: [String]] = [:]
        for event in pairs.keys.sorted() {
          commands[event] = try reader.at(event) { reader in
            guard AppEventKind(rawValue: event) != nil else {
              let known = AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")
              throw reader.failure("not a lifecycle event (\(known))")
            }
            return try reader.shellLine(pairs[event]!)
          }
        }
        return commands
      }
    }
    if let line = object["exercise"] {
      app.exercise = try at("exercise") { reader in
        let command = try reader.shellLine(line)
        return command[2]
      }
    }
  }

  /// One shell command line, as `/bin/sh -c LINE` (as `jetsamctl launch --ready` has it).
  func shellLine(_ value: JSONTree) throws -> [String] {
    guard case .string(let line) = value else { throw failure("expected a command line (a string, run by /bin/sh -c)") }
    guard !line.allSatisfy(\.isWhitespace) else { throw failure("the command is empty") }
    return ["/bin/sh", "-c", line]
  }

  static let actions = [
    "launch", "relaunch", "activate", "background", "suspend", "resume", "terminate", "kill", "wait", "pressure",
    "allocate", "release", "ramp", "spike", "charging", "exercise", "expect",
  ]

  mutating func step(_ value: JSONTree, location: String, apps: [String: LabApp]) throws -> Step {
    let object = try self.object(
      value, keys: Set(Self.actions + ["within", "inBackground", "reason", "for", "fails", "host"]))
    let named = Self.actions.filter { object[$0] != nil }
    guard named.count == 1, let word = named.first else {
      throw failure(
        named.isEmpty
          ? "a step needs one action (\(Self.actions.joined(separator: ", ")))"
          : "a step has one action, not \(named.joined(separator: " and "))")
    }
    let argument = object[word]!
    var step = Step(
      location: location,
      action: try at(word) { reader in
        try reader.action(word, argument, object: object, apps: apps)
      })
    for modifier in ["inBackground", "reason", "for", "fails"] where object[modifier] != nil {
      let allowed = ["inBackground": "launch", "reason": "kill", "for": "spike", "fails": "exercise"][modifier]!
      let article = allowed.first.map { "aeiou".contains($0) } == true ? "an" : "a"
      guard word == allowed else { throw failure("\(modifier): belongs to \(article) \(allowed) step") }
    }
    if let within = object["within"] { step.within = try at("within") { try $0.duration(within) } }
    // Which hosts there are is known only at the run (--host adds them): the runner checks the name.
    if let host = object["host"] { step.host = try at("host") { try $0.string(host) } }
    return step
  }

  mutating func action(_ word: String, _ value: JSONTree, object: [String: JSONTree], apps described: [String: LabApp])
    throws -> StepAction
  {
    let apps = Set(described.keys)
    switch word {
    case "launch":
      let background = try object["inBackground"].map { flag in try bool(flag) } ?? false
      return .launch(apps: try names(value, apps: apps), background: background)
    case "relaunch", "activate": return .activate(try app(value, apps: apps))
    case "background": return .background(try names(value, apps: apps))
    case "suspend": return .suspend(try names(value, apps: apps))
    case "resume": return .resume(try names(value, apps: apps))
    case "terminate": return .terminate(try names(value, apps: apps))
    case "kill":
      var reason = ExitReason.memoryPressure
      if let text = object["reason"] {
        guard case .string(let name) = text, let parsed = ExitReason(rawValue: name) else {
          throw failure(
            "reason: not an exit reason (\(ExitReason.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        reason = parsed
      }
      return .kill(app: try app(value, apps: apps), reason: reason)
    case "wait": return .wait(try duration(value))
    case "pressure":
      let text = try string(value)
      if text == "clear" { return .pressure(nil) }
      guard let level = PressureLevel(name: text) else {
        throw failure("\"\(text)\" is not a level (normal, warning, urgent, critical, clear)")
      }
      return .pressure(level)
    case "allocate": return .allocate(try size(value))
    case "release":
      guard case .bool(true) = value else { throw failure("expected true") }
      return .release
    case "ramp":
      let ramp = try self.object(value, keys: ["to", "over", "steps"])
      guard let to = ramp["to"], let over = ramp["over"] else { throw failure("a ramp needs to and over") }
      return .ramp(
        to: try at("to") { try $0.size(to) }, over: try at("over") { try $0.duration(over) },
        steps: try ramp["steps"].map { steps in
          try at("steps") { try $0.integer(steps, in: 1...1000) }
        } ?? 10)
    case "spike":
      guard let length = object["for"] else { throw failure("a spike needs for (how long it lasts)") }
      return .spike(size: try size(value), duration: try duration(length))
    case "charging": return .charging(try bool(value))
    case "exercise":
      let app = try self.app(value, apps: apps)
      guard described[app]?.exercise != nil else {
        throw failure("\(app) has no exercise (give it one: apps.\(app).exercise, a command line)")
      }
      let fails = try object["fails"].map { flag in try bool(flag) } ?? false
      return .exercise(app: app, fails: fails)
    default: return .expect(try expectation(value, apps: apps))
    }
  }

  mutating func expectation(_ value: JSONTree, apps: Set<String>) throws -> Expectation {
    let kinds = [
      "exit", "exits", "noExit", "restoration", "resumption", "state", "signpost", "event", "acknowledged", "memory",
    ]
    let object = try self.object(value, keys: Set(kinds))
    guard object.count == 1, let kind = object.keys.first, let argument = object[kind] else {
      throw failure("expect one of \(kinds.joined(separator: ", "))")
    }
    return try at(kind) { (reader) in
      switch kind {
      case "exit": return .exit(try reader.exitPattern(argument, apps: apps))
      case "exits":
        guard case .array(let items) = argument, !items.isEmpty else {
          throw reader.failure("expected a list of exits")
        }
        var patterns: [ExitPattern] = []
        for (index, item) in items.enumerated() {
          patterns.append(try reader.at(index: index) { try $0.exitPattern(item, apps: apps) })
        }
        return .exits(patterns)
      case "noExit": return .noExit(try reader.app(argument, apps: apps))
      case "restoration", "resumption":
        let fields = try reader.object(argument, keys: ["app", "verdict"])
        guard let app = fields["app"], let verdict = fields["verdict"] else {
          throw reader.failure("needs app and verdict")
        }
        let known = kind == "restoration" ? ["match", "mismatch", "unsaved", "lost"] : ["fresh", "stale"]
        let text = try reader.at("verdict") { try $0.string(verdict) }
        guard known.contains(text) else {
          throw reader.at("verdict") {
            $0.failure("\"\(text)\" is not a \(kind) verdict (\(known.joined(separator: ", ")))")
          }
        }
        return .verdict(
          app: try reader.at("app") { try $0.app(app, apps: apps) }, kind: VerdictKind(rawValue: kind)!, verdict: text)
      case "state":
        let fields = try reader.object(argument, keys: ["app", "is"])
        guard let app = fields["app"], let state = fields["is"] else { throw reader.failure("needs app and is") }
        let text = try reader.at("is") { try $0.string(state) }
        let known = LifecycleState.allCases.map(\.rawValue) + ["foreground", "background", "suspended", "notRunning"]
        guard known.contains(text) else {
          throw reader.at("is") {
            $0.failure("\"\(text)\" is not a state (\(Set(known).sorted().joined(separator: ", ")))")
          }
        }
        return .state(app: try reader.at("app") { try $0.app(app, apps: apps) }, state: text)
      case "signpost":
        let fields = try reader.object(argument, keys: ["app", "name", "phase"])
        guard let app = fields["app"], let name = fields["name"] else { throw reader.failure("needs app and name") }
        return .signpost(
          app: try reader.at("app") { try $0.app(app, apps: apps) },
          name: try reader.at("name") { try $0.string(name) },
          phase: try fields["phase"].map { phase in try reader.at("phase") { try $0.string(phase) } })
      case "memory":
        let fields = try reader.object(argument, keys: ["app", "atLeast"])
        guard let app = fields["app"], let bytes = fields["atLeast"] else {
          throw reader.failure("needs app and atLeast")
        }
        return .memory(
          app: try reader.at("app") { try $0.app(app, apps: apps) },
          atLeast: try reader.at("atLeast") { try $0.size(bytes) })
      default:
        let fields = try reader.object(argument, keys: ["app", "name"])
        guard let app = fields["app"], let name = fields["name"] else { throw reader.failure("needs app and name") }
        let event = try reader.at("name") { try $0.string(name) }
        guard AppEventKind(rawValue: event) != nil else {
          throw reader.at("name") {
            $0.failure(
              "\"\(event)\" is not a lifecycle event (\(AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
          }
        }
        let named = try reader.at("app") { try $0.app(app, apps: apps) }
        return kind == "event" ? .event(app: named, name: event) : .acknowledged(app: named, name: event)
      }
    }
  }

  /// A range written as one value or `[low, high]`.
  mutating func range<T>(_ value: JSONTree, _ read: (inout TreeReader, JSONTree) throws -> T) throws -> (T, T) {
    if case .array(let pair) = value {
      guard pair.count == 2 else { throw failure("expected one value or [low, high]") }
      let low = try at(index: 0) { try read(&$0, pair[0]) }
      let high = try at(index: 1) { try read(&$0, pair[1]) }
      return (low, high)
    }
    let one = try read(&self, value)
    return (one, one)
  }

  mutating func chaos(_ value: JSONTree, apps: [String]) throws -> ChaosSettings {
    let object = try self.object(value, keys: ["seed", "duration", "apps", "usage", "spikes", "kills", "wakes"])
    guard let duration = object["duration"] else { throw failure("duration: missing (how long the session lasts)") }
    var settings = ChaosSettings(
      seed: nil, duration: try at("duration") { try $0.duration(duration) },
      apps: try object["apps"].map { value in try at("apps") { try $0.names(value, apps: Set(apps)) } } ?? apps)
    if let seed = object["seed"] {
      settings.seed = try at("seed") { reader in
        guard case .integer(let number) = seed, number >= 0 else {
          throw reader.failure("expected a whole number, 0 or more")
        }
        return UInt64(number)
      }
    }
    if let usage = object["usage"] {
      try at("usage") { reader in
        let fields = try reader.object(usage, keys: ["dwell", "weights", "home"])
        if let dwell = fields["dwell"] {
          let (low, high) = try reader.at("dwell") { try $0.range(dwell) { try $0.duration($1).seconds } }
          guard low > 0, low <= high else { throw reader.at("dwell") { $0.failure("expected 0 < low ≤ high") } }
          settings.dwell = low...high
        }
        if let weights = fields["weights"] {
          try reader.at("weights") { reader in
            guard case .object(let pairs) = weights else { throw reader.failure("expected an object of app weights") }
            for (app, weight) in pairs {
              _ = try reader.at(app) { try $0.app(.string(app), apps: Set(settings.apps)) }
              let value = try reader.at(app) { try $0.number(weight) }
              guard value >= 0 else { throw reader.at(app) { $0.failure("expected a weight of 0 or more") } }
              settings.weights[app] = value
            }
          }
        }
        if let home = fields["home"] {
          let chance = try reader.at("home") { try $0.number(home) }
          guard (0...1).contains(chance) else {
            throw reader.at("home") { $0.failure("expected a chance from 0 to 1") }
          }
          settings.home = chance
        }
      }
    }
    if let spikes = object["spikes"] {
      settings.spikes = try at("spikes") { reader in
        let fields = try reader.object(spikes, keys: ["every", "size", "for"])
        guard let every = fields["every"], let size = fields["size"], let length = fields["for"] else {
          throw reader.failure("spikes need every, size and for")
        }
        let sizes = try reader.at("size") { try $0.range(size) { try $0.size($1) } }
        let lengths = try reader.at("for") { try $0.range(length) { try $0.duration($1).seconds } }
        guard sizes.0 <= sizes.1, lengths.0 <= lengths.1 else {
          throw reader.failure("a range's low is above its high")
        }
        return ChaosSettings.Spikes(
          every: try reader.at("every") { try $0.duration(every) }, size: sizes.0...sizes.1,
          length: lengths.0...lengths.1)
      }
    }
    if let kills = object["kills"] {
      settings.kills = try at("kills") { reader in
        let fields = try reader.object(kills, keys: ["every", "reasons"])
        guard let every = fields["every"] else { throw reader.failure("every: missing") }
        var reasons: [ExitReason] = [.memoryPressure]
        if case .array(let items)? = fields["reasons"] {
          reasons = try reader.at("reasons") { reader in
            try items.map { item in
              guard case .string(let text) = item, let reason = ExitReason(rawValue: text) else {
                throw reader.failure(
                  "not an exit reason (\(ExitReason.allCases.map(\.rawValue).joined(separator: ", ")))")
              }
              return reason
            }
          }
        }
        return ChaosSettings.Kills(every: try reader.at("every") { try $0.duration(every) }, reasons: reasons)
      }
    }
    if let wakes = object["wakes"] {
      settings.wakes = try at("wakes") { reader in
        let fields = try reader.object(wakes, keys: ["every", "apps"])
        guard let every = fields["every"] else { throw reader.failure("every: missing") }
        return ChaosSettings.Wakes(
          every: try reader.at("every") { try $0.duration(every) },
          apps: try fields["apps"].map { value in try reader.at("apps") { try $0.integer(value, in: 1...1000) } } ?? 3)
      }
    }
    for every in [settings.spikes?.every, settings.kills?.every, settings.wakes?.every].compactMap({ $0 })
    where every.seconds <= 0 {
      throw failure("every: must be above 0")
    }
    return settings
  }

  mutating func exitPattern(_ value: JSONTree, apps: Set<String>) throws -> ExitPattern {
    let object = try self.object(value, keys: ["app", "reason", "state", "launch", "lockedFile"])
    guard let app = object["app"] else { throw failure("app: missing") }
    var pattern = ExitPattern(app: try at("app") { try $0.app(app, apps: apps) })
    if let reason = object["reason"] {
      pattern.reason = try at("reason") { reader in
        guard let parsed = ExitReason(rawValue: try reader.string(reason)) else {
          throw reader.failure("not an exit reason (\(ExitReason.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return parsed
      }
    }
    if let state = object["state"] {
      pattern.state = try at("state") { reader in
        let text = try reader.string(state)
        guard ["foreground", "background", "suspended"].contains(text) else {
          throw reader.failure("\"\(text)\" is not a state an app dies in (foreground, background, suspended)")
        }
        return text
      }
    }
    if let launch = object["launch"] { pattern.launch = try at("launch") { try $0.integer(launch, in: 1...1_000_000) } }
    if let path = object["lockedFile"] {
      pattern.lockedFile = try at("lockedFile") { reader in
        let text = try reader.string(path)
        guard text.hasPrefix("/") || text.hasPrefix("{") else {
          throw reader.failure("expected an absolute path (as the record names it), or one from {tmpDir}")
        }
        return text
      }
    }
    return pattern
  }
}
