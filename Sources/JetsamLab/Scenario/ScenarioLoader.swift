import Foundation
import JetsamConfig
import JetsamCore

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

/// Reads scenario files (LABS.md documents the format): the file's own keys through the config module's decoder
/// (``Scenario``'s `Decodable`), then what the file alone cannot say: the device profile it names, found among the
/// profile directories, and the private jetsamd's config over that profile, checked as jetsamd checks it.
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
    var scenario: Scenario
    do {
      scenario = try ConfigLoader.decode(Scenario.self, from: document.object, file: file)
    } catch {
      throw failure(error.reason, at: error.keyPath, in: document)
    }
    scenario.file = file
    if scenario.name.isEmpty { scenario.name = file.split(separator: ".").first.map(String.init) ?? file }
    // What the file alone cannot say: where its profile is, and whether jetsamd takes its config over that profile.
    var profile: JSON5Document?
    if let device = scenario.profile {
      let path = try profilePath(device, directories: profileDirectories, document: document)
      scenario.profile = path
      profile = try profileDocument(path, document: document)
    }
    try checkConfig(scenario.config, profile: profile, document: document)
    return scenario
  }

  /// An error about the value at `keyPath`, quoting it as written.
  private static func failure(_ reason: String, at keyPath: String, in document: JSON5Document) -> ScenarioError {
    ScenarioError(file: document.file, path: keyPath, reason: document.reason(reason, at: keyPath))
  }

  /// A profile's file: a path as given, or a name looked up in `directories` (`phone-2g` → `phone-2g.json5`).
  private static func profilePath(_ name: String, directories: [String], document: JSON5Document)
    throws(ScenarioError) -> String
  {
    if name.contains("/") {
      guard FileManager.default.fileExists(atPath: name) else {
        throw failure("no profile file \(name)", at: "device", in: document)
      }
      return name
    }
    for directory in directories where FileManager.default.fileExists(atPath: "\(directory)/\(name).json5") {
      return "\(directory)/\(name).json5"
    }
    throw failure(
      "no profile \"\(name)\" (looked in \(directories.joined(separator: ", ")))", at: "device", in: document)
  }

  /// The device profile at `path`, read as a config file is read.
  private static func profileDocument(_ path: String, document: JSON5Document) throws(ScenarioError) -> JSON5Document {
    guard let bytes = FileManager.default.contents(atPath: path) else {
      throw failure("cannot read \(path)", at: "device", in: document)
    }
    do {
      return try JSON5Document(bytes: Array(bytes), file: lastPathComponent(of: path))
    } catch {
      throw failure("\(error)", at: "device", in: document)
    }
  }

  /// Checks the config the lab's jetsamd will run with as jetsamd checks it, so that an error names this file's key
  /// (`config.device.ram`), or the profile that `device` names, never the lab's generated `jetsamd.json5`.
  private static func checkConfig(_ config: [String: JSONTree], profile: JSON5Document?, document: JSON5Document)
    throws(ScenarioError)
  {
    let merged = LabDaemon.config(profile: profile?.object ?? [:], scenario: config, directory: "/run/jetsam-lab")
    do throws(ConfigError) {
      _ = try ConfigLoader.decode(merged, label: document.file)
    } catch {
      let key = error.keyPath.isEmpty ? "config" : "config." + error.keyPath
      if let profile, !document.contains(key), profile.contains(error.keyPath) {
        throw ScenarioError(
          file: document.file, path: "device",
          reason: "\(profile.file): \(error.keyPath): \(profile.reason(error.reason, at: error.keyPath))")
      }
      throw failure(error.reason, at: key, in: document)
    }
  }
}
