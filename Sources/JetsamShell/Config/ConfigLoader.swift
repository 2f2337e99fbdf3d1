import FoundationEssentials
import JetsamCore
import JetsamProtocol
import JetsamWire

/// A configuration problem, naming the file, the key path and the reason:
/// `jetsamd.json5: apps.mail.memoryLimit: "12Q" is not a size`.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
  public var file: String
  public var keyPath: String
  public var reason: String
  public var description: String {
    keyPath.isEmpty ? "\(file): \(reason)" : "\(file): \(keyPath): \(reason)"
  }
}

/// Reads and validates config files (JSON5: comments, trailing commas and unquoted keys allowed).
public enum ConfigLoader {
  /// Loads `path`, then applies the profile file if given (a profile is a partial config whose keys override).
  public static func load(path: String?, profile: String? = nil) throws(ConfigError) -> DaemonConfig {
    var merged: [String: JSONTree] = [:]
    for file in [path, profile].compactMap({ $0 }) {
      merge(try readObject(file), into: &merged)
    }
    let label = [path, profile].compactMap { $0.map { lastPathComponent(of: $0) } }.joined(separator: "+")
    let config = try decode(merged, label: label.isEmpty ? "defaults" : label)
    try validate(config, label: label)
    return config
  }

  /// Decodes a config from JSON5 text (for tests and `--check-config`).
  public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
    try parse(bytes: Array(text.utf8), file: file)
  }

  /// Decodes a config from the bytes of a file, as ``load(path:profile:)`` reads them.
  public static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> DaemonConfig {
    let config = try decode(try object(from: Data(bytes), file: file), label: file)
    try validate(config, label: file)
    return config
  }

  /// A JSON5 object from `bytes`, checked as a config file is (UTF-8, syntax named by line and column, numbers
  /// Foundation can read), for other JSON5 inputs such as lab scenarios.
  package static func json5Object(bytes: [UInt8], file: String) throws(ConfigError) -> [String: JSONTree] {
    try object(from: Data(bytes), file: file)
  }

  private static func readObject(_ path: String) throws(ConfigError) -> [String: JSONTree] {
    let name = lastPathComponent(of: path)
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ConfigError(file: name, keyPath: "", reason: "cannot read \(path)")
    }
    return try object(from: data, file: name)
  }

  private static func object(from text: Data, file: String) throws(ConfigError) -> [String: JSONTree] {
    // Foundation's JSON5 scanner traps on a byte that is not UTF-8 in an unquoted key (found by fuzzing the
    // reload): such a file is refused here, by the byte's offset, before it gets there.
    if let offset = firstInvalidUTF8Offset(in: text) {
      throw ConfigError(file: file, keyPath: "", reason: "not UTF-8 text: an invalid byte at offset \(offset)")
    }
    // Checked here first, not only to say where a syntax error is: Foundation's JSON5 scanner also traps on some
    // malformed numbers (`0x0xa`, found by fuzzing) and on some valid ones it cannot read exactly (a 20-digit
    // fraction), so a text that is not JSON5 never reaches it, and numbers reach it as Swift writes them.
    var data: Data
    do throws(JSON5SyntaxError) {
      data = Data(try JSON5SyntaxError.normalizingNumbers(in: Array(text)))
    } catch {
      throw ConfigError(file: file, keyPath: "", reason: "not valid JSON5 at \(error)")
    }
    // Foundation's number reader also looks past the end of the text when a number is the last thing in it (two
    // fuzzing crashes, both a lone top-level number, neither reproducible outside the fuzzer): a config is an
    // object, so anything else is refused before, and a newline ends the text in any case.
    guard JSON5SyntaxError.topLevelIsObject(Array(data)) else {
      throw ConfigError(file: file, keyPath: "", reason: "the top level must be an object")
    }
    data.append(UInt8(ascii: "\n"))
    // Foundation's JSON5 support is in JSONDecoder only, so decode into a generic tree first (for merging).
    let decoder = JSONDecoder()
    decoder.allowsJSON5 = true
    do {
      let tree = try decoder.decode(JSONTree.self, from: data)
      guard case .object(let object) = tree else {
        throw ConfigError(file: file, keyPath: "", reason: "the top level must be an object")
      }
      return object
    } catch let error as ConfigError {
      throw error
    } catch {
      // Text the syntax check accepted and Foundation did not: name the usual suspects.
      throw ConfigError(
        file: file, keyPath: "",
        reason: "not valid JSON5 (\(describe(error))): check brackets, quotes and commas")
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

  private static func decode(_ object: [String: JSONTree], label: String) throws(ConfigError) -> DaemonConfig {
    do {
      return try JSONDecoder().decode(DaemonConfig.self, from: Data(JSONTree.object(object).json))
    } catch let error as DecodingError {
      if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
        let key = fractionWhereIntegerExpected(in: object)
      {
        throw ConfigError(file: label, keyPath: key.path, reason: "expected an integer, got \(key.value)")
      }
      throw configError(error, file: label)
    } catch {
      throw ConfigError(file: label, keyPath: "", reason: "\(error)")
    }
  }

  /// FoundationEssentials' JSONDecoder reports a fraction or a number beyond Int64 where an integer is expected
  /// (`daemonNice: 3.5`, `foregroundSlots: 1e300`) as "not valid JSON" with no key. The tree parsed, so the JSON
  /// is valid: the culprit is the one such number whose replacement by an integer makes that error go away.
  private static func fractionWhereIntegerExpected(in object: [String: JSONTree]) -> (path: String, value: Double)? {
    for (path, value) in JSONTree.object(object).nonIntegers() {
      let integer = abs(value) < 9e18 ? Int64(value.rounded(.towardZero)) : 0
      let rounded = JSONTree.object(object).replacing(path, with: .integer(integer))
      do {
        _ = try JSONDecoder().decode(DaemonConfig.self, from: Data(rounded.json))
        return (path.joined(separator: "."), value)
      } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
        continue
      } catch {
        return (path.joined(separator: "."), value)
      }
    }
    return nil
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
    for name in config.apps.keys where !AppName.isValid(name) {
      throw ConfigError(file: label, keyPath: "apps.\(name)", reason: AppName.rule)
    }
  }

  static func configError(_ error: DecodingError, file: String) -> ConfigError {
    func path(_ keys: [any CodingKey]) -> String {
      keys.enumerated().map { index, key in
        key.intValue.map { "[\($0)]" } ?? (index == 0 ? key.stringValue : "." + key.stringValue)
      }.joined()
    }
    switch error {
    case .dataCorrupted(let context):
      return ConfigError(file: file, keyPath: path(context.codingPath), reason: context.debugDescription)
    case .keyNotFound(let key, let context):
      return ConfigError(file: file, keyPath: path(context.codingPath + [key]), reason: "missing")
    case .typeMismatch(let type, let context):
      return ConfigError(file: file, keyPath: path(context.codingPath), reason: "expected \(typeName(type))")
    case .valueNotFound(let type, let context):
      return ConfigError(file: file, keyPath: path(context.codingPath), reason: "expected \(typeName(type)), got null")
    @unknown default:
      return ConfigError(file: file, keyPath: "", reason: "\(error)")
    }
  }

  private static func typeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Int.Type, is Int32.Type, is Int64.Type: "an integer"
    case is Double.Type: "a number"
    case is Bool.Type: "true or false"
    default:
      "\(type)".hasPrefix("Array") ? "a list" : "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)"
    }
  }

  private static func describe(_ error: Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
      if let underlying = context.underlyingError { return "\(underlying)" }
      return context.debugDescription
    }
    return "\(error)"
  }
}

/// App names: what may be used as a cgroup directory and a CLI argument.
public enum AppName {
  public static let rule =
    "app names are 1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or digit"
  public static func isValid(_ name: String) -> Bool {
    guard let first = name.first, first.isASCII, first.isLetter || first.isNumber, name.count <= 64 else {
      return false
    }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
  }
}
