import Foundation
import JetsamConfig
import JetsamCore

/// An `expect` step's value (LABS.md, *Scenario files*): one kind of expectation, its apps among the scenario's, which
/// decoding is given as its configuration.
extension Expectation: DecodableWithConfiguration {
  private enum Kind: String, CodingKey, CaseIterable {
    case exit, exits, noExit, restoration, resumption, state, signpost, event, acknowledged, memory
  }

  private enum VerdictKeys: String, CodingKey, CaseIterable {
    case app, verdict
  }

  private enum StateKeys: String, CodingKey, CaseIterable {
    case app, `is`
  }

  private enum SignpostKeys: String, CodingKey, CaseIterable {
    case app, name, phase
  }

  private enum MemoryKeys: String, CodingKey, CaseIterable {
    case app, atLeast
  }

  /// `event` and `acknowledged`: an app and a lifecycle event's name.
  private enum EventKeys: String, CodingKey, CaseIterable {
    case app, name
  }

  /// The expectation written at `decoder`'s key path, its apps among `apps`.
  public init(from decoder: any Decoder, configuration apps: Set<String>) throws {
    let c = try decoder.container(knownKeys: Kind.self)
    guard c.allKeys.count == 1, let kind = c.allKeys.first else {
      throw decoder.failure("expect one of \(Kind.allCases.map(\.stringValue).joined(separator: ", "))")
    }
    let value = try c.superDecoder(forKey: kind)
    switch kind {
    case .exit: self = .exit(try ExitPattern(from: value, configuration: apps))
    case .exits:
      guard var list = try? value.unkeyedContainer(), !list.isAtEnd else {
        throw value.failure("expected a list of exits")
      }
      var patterns: [ExitPattern] = []
      while !list.isAtEnd { patterns.append(try list.decode(ExitPattern.self, configuration: apps)) }
      self = .exits(patterns)
    case .noExit: self = .noExit(try value.appName(in: apps))
    case .restoration, .resumption:
      let fields = try Self.fields(value, needs: VerdictKeys.verdict)
      let known = kind == .restoration ? ["match", "mismatch", "unsaved", "lost"] : ["fresh", "stale"]
      let verdict = try fields.superDecoder(forKey: .verdict)
      let text = try String(from: verdict)
      guard known.contains(text) else {
        throw verdict.failure("\"\(text)\" is not a \(kind.stringValue) verdict (\(known.joined(separator: ", ")))")
      }
      self = .verdict(
        app: try fields.superDecoder(forKey: .app).appName(in: apps), kind: VerdictKind(rawValue: kind.stringValue)!,
        verdict: text)
    case .state:
      let fields = try Self.fields(value, needs: StateKeys.is)
      let state = try fields.superDecoder(forKey: .is)
      let text = try String(from: state)
      guard let expected = ExpectedState(text) else {
        let known = LifecycleState.allCases.map(\.rawValue) + CoarseState.allCases.map(\.rawValue)
        throw state.failure("\"\(text)\" is not a state (\(Set(known).sorted().joined(separator: ", ")))")
      }
      self = .state(app: try fields.superDecoder(forKey: .app).appName(in: apps), state: expected)
    case .signpost:
      let fields = try Self.fields(value, needs: SignpostKeys.name)
      self = .signpost(
        app: try fields.superDecoder(forKey: .app).appName(in: apps),
        name: try fields.decode(String.self, forKey: .name),
        phase: try fields.decodeIfWritten(String.self, forKey: .phase))
    case .memory:
      let fields = try Self.fields(value, needs: MemoryKeys.atLeast)
      self = .memory(
        app: try fields.superDecoder(forKey: .app).appName(in: apps),
        atLeast: try fields.superDecoder(forKey: .atLeast).size())
    case .event, .acknowledged:
      let fields = try Self.fields(value, needs: EventKeys.name)
      let name = try fields.superDecoder(forKey: .name)
      let event = try String(from: name)
      guard AppEventKind(rawValue: event) != nil else {
        let known = AppEventKind.allCases.map(\.rawValue).joined(separator: ", ")
        throw name.failure("\"\(event)\" is not a lifecycle event (\(known))")
      }
      let app = try fields.superDecoder(forKey: .app).appName(in: apps)
      self = kind == .event ? .event(app: app, name: event) : .acknowledged(app: app, name: event)
    }
  }

  /// The fields of an expectation that names an app and `needed` (and may have other `Keys`).
  private static func fields<Keys: CodingKey & CaseIterable>(_ value: any Decoder, needs needed: Keys) throws
    -> KeyedDecodingContainer<Keys>
  {
    let fields = try value.container(knownKeys: Keys.self)
    guard let app = Keys(stringValue: "app"), fields.contains(app), fields.contains(needed) else {
      throw value.failure("needs app and \(needed.stringValue)")
    }
    return fields
  }
}
