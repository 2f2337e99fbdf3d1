import Foundation
import JetsamCore

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
    var merged: [String: Any] = [:]
    for file in [path, profile].compactMap({ $0 }) {
      merge(try readObject(file), into: &merged)
    }
    let label = [path, profile].compactMap { $0.map { ($0 as NSString).lastPathComponent } }.joined(separator: "+")
    let config = try decode(merged, label: label.isEmpty ? "defaults" : label)
    try validate(config, label: label)
    return config
  }

  /// Decodes a config from JSON5 text (for tests and `--check-config`).
  public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
    let config = try decode(try object(from: Data(text.utf8), file: file), label: file)
    try validate(config, label: file)
    return config
  }

  private static func readObject(_ path: String) throws(ConfigError) -> [String: Any] {
    let name = (path as NSString).lastPathComponent
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ConfigError(file: name, keyPath: "", reason: "cannot read \(path)")
    }
    return try object(from: data, file: name)
  }

  private static func object(from data: Data, file: String) throws(ConfigError) -> [String: Any] {
    // Foundation's JSON5 support is in JSONDecoder only, so decode into a generic tree first (for merging).
    let decoder = JSONDecoder()
    decoder.allowsJSON5 = true
    do {
      let tree = try decoder.decode(JSONTree.self, from: data)
      guard case .object(let object) = tree else {
        throw ConfigError(file: file, keyPath: "", reason: "the top level must be an object")
      }
      return object.mapValues(\.any)
    } catch let error as ConfigError {
      throw error
    } catch {
      // Foundation reports no position for JSON5 syntax errors; name the usual suspects instead.
      throw ConfigError(
        file: file, keyPath: "",
        reason: "not valid JSON5 (\(describe(error))): check brackets, quotes and commas")
    }
  }

  private static func merge(_ overlay: [String: Any], into base: inout [String: Any]) {
    for (key, value) in overlay {
      if let sub = value as? [String: Any], var existing = base[key] as? [String: Any], key != "apps" {
        merge(sub, into: &existing)
        base[key] = existing
      } else if let sub = value as? [String: Any], var existing = base[key] as? [String: Any] {
        for (name, app) in sub { existing[name] = app }  // profiles add or replace whole apps
        base[key] = existing
      } else {
        base[key] = value
      }
    }
  }

  private static func decode(_ object: [String: Any], label: String) throws(ConfigError) -> DaemonConfig {
    do {
      let data = try JSONSerialization.data(withJSONObject: object)
      return try JSONDecoder().decode(DaemonConfig.self, from: data)
    } catch let error as DecodingError {
      throw configError(error, file: label)
    } catch {
      throw ConfigError(file: label, keyPath: "", reason: "\(error)")
    }
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
      keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        .replacingOccurrences(of: ".[", with: "[")
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
      if let underlying = context.underlyingError as NSError? {
        return underlying.userInfo[NSDebugDescriptionErrorKey] as? String ?? context.debugDescription
      }
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

/// A generic JSON value, decoded with JSONDecoder (which is where JSON5 support lives).
enum JSONTree: Decodable {
  case object([String: JSONTree])
  case array([JSONTree])
  case string(String)
  case number(Double)
  case integer(Int64)
  case bool(Bool)
  case null

  init(from decoder: any Decoder) throws {
    if let c = try? decoder.container(keyedBy: AnyCodingKey.self) {
      var object: [String: JSONTree] = [:]
      for key in c.allKeys { object[key.stringValue] = try c.decode(JSONTree.self, forKey: key) }
      self = .object(object)
    } else if var c = try? decoder.unkeyedContainer() {
      var items: [JSONTree] = []
      while !c.isAtEnd { items.append(try c.decode(JSONTree.self)) }
      self = .array(items)
    } else {
      let c = try decoder.singleValueContainer()
      if c.decodeNil() {
        self = .null
      } else if let b = try? c.decode(Bool.self) {
        self = .bool(b)
      } else if let i = try? c.decode(Int64.self) {
        self = .integer(i)
      } else if let d = try? c.decode(Double.self) {
        self = .number(d)
      } else {
        self = .string(try c.decode(String.self))
      }
    }
  }

  var any: Any {
    switch self {
    case .object(let o): o.mapValues(\.any)
    case .array(let a): a.map(\.any)
    case .string(let s): s
    case .number(let d): d
    case .integer(let i): i
    case .bool(let b): b
    case .null: NSNull()
    }
  }
}
