import FoundationEssentials
import JetsamCore
import JetsamPlatform

/// Reads and validates config files (JSON5: comments, trailing commas and unquoted keys allowed).
public enum ConfigLoader {
  /// Loads `path`, then applies the profile file if given (a profile is a partial config whose keys override).
  public static func load(path: String?, profile: String? = nil) throws(ConfigError) -> DaemonConfig {
    var documents: [JSON5Document] = []
    var merged: [String: JSONTree] = [:]
    for file in [path, profile].compactMap({ $0 }) {
      let name = lastPathComponent(of: file)
      guard let data = FileManager.default.contents(atPath: file) else {
        throw ConfigError(file: name, keyPath: "", reason: "cannot read \(file)")
      }
      let document = try JSON5Document(bytes: Array(data), file: name)
      merge(document.object, into: &merged)
      documents.append(document)
    }
    let label = documents.map(\.file).joined(separator: "+")
    do throws(ConfigError) {
      return try decode(merged, label: label.isEmpty ? "defaults" : label)
    } catch {
      // The file that wrote the value: the profile's keys override the config's.
      guard let document = documents.last(where: { $0.contains(error.keyPath) }) else { throw error }
      throw ConfigError(
        file: document.file, keyPath: error.keyPath, reason: document.reason(error.reason, at: error.keyPath))
    }
  }

  /// Decodes a config from JSON5 text (for tests and `--check-config`).
  public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
    try parse(bytes: Array(text.utf8), file: file)
  }

  /// Decodes a config from the bytes of a file, as ``load(path:profile:)`` reads them.
  public static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> DaemonConfig {
    let document = try JSON5Document(bytes: bytes, file: file)
    do throws(ConfigError) {
      return try decode(document.object, label: file)
    } catch {
      throw ConfigError(file: file, keyPath: error.keyPath, reason: document.reason(error.reason, at: error.keyPath))
    }
  }

  /// A JSON5 object from `bytes`, checked as a config file is (UTF-8, syntax named by line and column), for other
  /// JSON5 inputs such as jetsam-sim's models.
  package static func json5Object(bytes: [UInt8], file: String) throws(ConfigError) -> [String: JSONTree] {
    try JSON5Document(bytes: bytes, file: file).object
  }

  /// A `T` decoded from the JSON5 `object` through ``JSONTreeDecoder``, as a config is: an error names the key path
  /// of the value it is about (jetsam-sim's device models, the lab's scenarios).
  package static func decode<T: Decodable>(_ type: T.Type, from object: [String: JSONTree], file: String)
    throws(ConfigError) -> T
  {
    do {
      return try T(from: JSONTreeDecoder(.object(object)))
    } catch let error as DecodingError {
      throw configError(error, file: file)
    } catch {
      throw ConfigError(file: file, keyPath: "", reason: "\(error)")
    }
  }

  /// Lays `overlay` over `base` as a profile is laid over a config: objects merge key by key (`apps` app by app,
  /// each app whole), anything else is replaced.
  package static func merge(_ overlay: [String: JSONTree], into base: inout [String: JSONTree]) {
    for (key, value) in overlay {
      if case .object(let sub) = value, case .object(var existing) = base[key], key != "apps" {
        merge(sub, into: &existing)
        base[key] = .object(existing)
      } else if case .object(let sub) = value, case .object(var existing) = base[key] {
        for (name, app) in sub { existing[name] = app }  // profiles add or replace whole apps
        base[key] = .object(existing)
      } else {
        base[key] = value
      }
    }
  }

  /// The config `object` stands for, checked; an error names the key path (the value as written is the caller's to
  /// add: only it knows which file wrote it).
  package static func decode(_ object: [String: JSONTree], label: String) throws(ConfigError) -> DaemonConfig {
    let config: DaemonConfig
    do {
      config = try DaemonConfig(from: JSONTreeDecoder(.object(object)))
    } catch let error as DecodingError {
      throw configError(error, file: label)
    } catch {
      throw ConfigError(file: label, keyPath: "", reason: "\(error)")
    }
    try validate(config, label: label)
    return config
  }

  private static func validate(_ config: DaemonConfig, label: String) throws(ConfigError) {
    if case .bytes(let ram) = config.device.ram {
      if ram < 16 << 20 {
        throw ConfigError(file: label, keyPath: "device.ram", reason: "\(ram) bytes is too small (at least 16M)")
      }
      if let problem = config.device.thresholds.resolved(ram: ram).problems().first {
        throw ConfigError(
          file: label, keyPath: "device.thresholds." + problem.prefix { $0 != ":" },
          reason: String(problem.drop { $0 != ":" }.dropFirst(2)))
      }
    }
    for name in config.apps.keys.sorted() where !AppName.isValid(name) {
      throw ConfigError(file: label, keyPath: ConfigKeyPath.appending(name, to: "apps"), reason: AppName.rule)
    }
    for name in config.apps.keys.sorted() {
      for (key, command) in config.apps[name]!.commandsToCheck {
        // Only whether the program is there and anyone may execute it: whom the app runs as is looked up at its
        // launch (the user database may be seconds away, and its answer may change), which checks that user.
        guard let program = ShellCommandLine.program(of: command),
          let problem = ProgramCheck.problem(
            program: program, searchPath: AppCommands.searchPath,
            workingDirectory: config.apps[name]!.workingDirectory, asker: .anyone)
        else { continue }
        throw ConfigError(
          file: label, keyPath: ConfigKeyPath.appending(name, to: "apps") + ".hooks.\(key)", reason: problem)
      }
    }
  }

  package static func configError(_ error: DecodingError, file: String) -> ConfigError {
    switch error {
    case .dataCorrupted(let context):
      return ConfigError(
        file: file, keyPath: ConfigKeyPath.string(context.codingPath), reason: context.debugDescription)
    case .keyNotFound(let key, let context):
      return ConfigError(file: file, keyPath: ConfigKeyPath.string(context.codingPath + [key]), reason: "missing")
    case .typeMismatch(let type, let context):
      return ConfigError(
        file: file, keyPath: ConfigKeyPath.string(context.codingPath), reason: "expected \(typeName(type))")
    case .valueNotFound(let type, let context):
      return ConfigError(
        file: file, keyPath: ConfigKeyPath.string(context.codingPath), reason: "expected \(typeName(type)), got null")
    @unknown default:
      return ConfigError(file: file, keyPath: "", reason: "\(error)")
    }
  }

  private static func typeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Int.Type, is Int32.Type, is Int64.Type, is UInt64.Type: "an integer"
    case is Double.Type: "a number"
    case is Bool.Type: "true or false"
    default:
      "\(type)".hasPrefix("Array") ? "a list" : "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)"
    }
  }
}
