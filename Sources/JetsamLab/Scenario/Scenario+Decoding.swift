import Foundation
import JetsamConfig

/// A scenario file's keys (LABS.md), read through the config module's decoder (``JSONTreeDecoder``): unknown keys
/// refused, each value checked where it is written, each app a step or the chaos names looked up among `apps`.
///
/// What the file alone cannot say is ``ScenarioLoader``'s to finish: the decoded scenario's ``Scenario/profile`` is
/// the profile as written (a name or a path), its ``Scenario/name`` empty when the file gives none, its
/// ``Scenario/file`` empty; its `config` is not yet checked against jetsamd's rules.
extension Scenario: Decodable {
  private enum CodingKeys: String, CodingKey, CaseIterable {
    case name, device, config, apps, steps, expect, chaos, hosts
  }

  /// The config keys each run sets for itself.
  private enum LabConfigKeys: String, CodingKey, CaseIterable {
    case stateDirectory, runtimeDirectory
  }

  private enum ExpectKeys: String, CodingKey, CaseIterable {
    case noUnexpectedExits, timeLimit
  }

  /// The most apps a scenario may describe (after ranges are expanded).
  static let maxApps = 10_000

  /// The scenario a file's top-level object describes, to be finished by ``ScenarioLoader``.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(knownKeys: CodingKeys.self)
    let name = try c.decodeIfWritten(String.self, forKey: .name)
    let profile = try c.decodeIfWritten(String.self, forKey: .device)
    let config = try c.readIfWritten(.config) { try Self.config($0) } ?? [:]
    guard c.contains(.apps) else {
      throw DecodingError.dataCorruptedError(
        forKey: .apps, in: c, debugDescription: "missing (the apps the steps start)")
    }
    let apps = try Self.apps(c.superDecoder(forKey: .apps))
    var steps: [Step] = []
    // A chaos session may be all a scenario runs: then it needs no steps.
    if c.contains(.steps) || !c.contains(.chaos) {
      guard var list = try? c.nestedUnkeyedContainer(forKey: .steps) else {
        throw DecodingError.dataCorruptedError(forKey: .steps, in: c, debugDescription: "missing or not a list")
      }
      while !list.isAtEnd { steps.append(try list.decode(Step.self, configuration: apps)) }
    }
    var noUnexpectedExits = false
    var timeLimit: Duration?
    if c.contains(.expect) {
      let fields = try c.superDecoder(forKey: .expect).container(knownKeys: ExpectKeys.self)
      noUnexpectedExits = try fields.decodeIfWritten(Bool.self, forKey: .noUnexpectedExits) ?? false
      timeLimit = try fields.readIfWritten(.timeLimit) { try $0.duration() }
    }
    let chaos =
      c.contains(.chaos) ? try c.decode(ChaosSettings.self, forKey: .chaos, configuration: apps.keys.sorted()) : nil
    let hosts = try c.readIfWritten(.hosts) { try Self.hosts($0) } ?? []
    if chaos != nil, !hosts.isEmpty {
      throw DecodingError.dataCorruptedError(
        forKey: .chaos, in: c, debugDescription: "a chaos session runs on one daemon, not across hosts")
    }
    self.init(
      name: name ?? "", file: "", profile: profile, config: config, apps: apps, steps: steps,
      noUnexpectedExits: noUnexpectedExits, timeLimit: timeLimit, chaos: chaos, hosts: hosts)
  }

  /// `config`: more jetsamd config, kept as written (the loader checks it over the profile), but for the keys the lab
  /// sets.
  private static func config(_ decoder: any Decoder) throws -> [String: JSONTree] {
    let config = try decoder.expecting("expected an object (jetsamd's config)") {
      try [String: JSONTree](from: decoder)
    }
    let lab = try decoder.container(keyedBy: LabConfigKeys.self)
    for key in LabConfigKeys.allCases where lab.contains(key) {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: lab, debugDescription: "set by the lab (each run has its own)")
    }
    return config
  }

  /// `apps`: each app by name, or by a range of names (`app{1..200}`) for apps described alike.
  private static func apps(_ decoder: any Decoder) throws -> [String: LabApp] {
    let described = try decoder.namedValues("expected an object of apps")
    guard !described.isEmpty else { throw decoder.failure("expected an object of apps") }
    var apps: [String: LabApp] = [:]
    for (written, value) in described {
      let app = try LabApp(from: value)
      for name in try value.appNames(expanding: written) {
        guard apps[name] == nil else { throw value.failure("\(name) is described twice") }
        apps[name] = app
      }
      guard apps.count <= maxApps else { throw decoder.failure("more than \(maxApps) apps") }
    }
    return apps
  }

  /// `hosts`: host name → `ssh://[user@]host[:port][/socket]`.
  private static func hosts(_ decoder: any Decoder) throws -> [LabHost] {
    var hosts: [LabHost] = []
    for (name, value) in try decoder.namedValues(
      "expected an object: host name → \"ssh://[user@]host[:port][/socket]\"")
    {
      let url = try String(from: value)
      do throws(LabHostError) {
        hosts.append(try LabHost(name: name, url: url))
      } catch {
        throw value.failure(error.description)
      }
    }
    return hosts
  }
}
