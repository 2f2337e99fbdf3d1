import Foundation
import JetsamCore

/// A step's action, read from its word's value and the modifiers beside it (`inBackground`, `reason`, `for`, `fails`).
extension StepAction {
  /// The action `word` (one of ``Step/Key/actions``) of `step`, its apps among the keys of `described` (the
  /// scenario's).
  init(_ word: Step.Key, of step: KeyedDecodingContainer<Step.Key>, apps described: [String: LabApp]) throws {
    let apps = Set(described.keys)
    let value = try step.superDecoder(forKey: word)
    switch word {
    case .launch:
      let background = try step.decodeIfWritten(Bool.self, forKey: .inBackground) ?? false
      self = .launch(apps: try value.appNames(in: apps), background: background)
    case .relaunch, .activate: self = .activate(try value.appName(in: apps))
    case .background: self = .background(try value.appNames(in: apps))
    case .suspend: self = .suspend(try value.appNames(in: apps))
    case .resume: self = .resume(try value.appNames(in: apps))
    case .terminate: self = .terminate(try value.appNames(in: apps))
    case .kill:
      let reason = try step.readIfWritten(.reason) { try $0.exitReason() } ?? .memoryPressure
      self = .kill(app: try value.appName(in: apps), reason: reason)
    case .wait: self = .wait(try value.duration())
    case .pressure:
      let text = try String(from: value)
      if text == "clear" {
        self = .pressure(nil)
        return
      }
      guard let level = PressureLevel(name: text) else {
        throw value.failure("\"\(text)\" is not a level (normal, warning, urgent, critical, clear)")
      }
      self = .pressure(level)
    case .allocate: self = .allocate(try value.size())
    case .release:
      guard (try? Bool(from: value)) == true else { throw value.failure("expected true") }
      self = .release
    case .ramp: self = try Self.ramp(value)
    case .spike:
      guard step.contains(.for) else { throw value.failure("a spike needs for (how long it lasts)") }
      let size = try value.size()
      self = .spike(size: size, duration: try step.superDecoder(forKey: .for).duration())
    case .charging: self = .charging(try Bool(from: value))
    case .exercise:
      let app = try value.appName(in: apps)
      guard described[app]?.exercise != nil else {
        throw value.failure("\(app) has no exercise (give it one: apps.\(app).exercise, a command line)")
      }
      self = .exercise(app: app, fails: try step.decodeIfWritten(Bool.self, forKey: .fails) ?? false)
    case .expect: self = .expect(try Expectation(from: value, configuration: apps))
    // The step chose `word` among the actions: a modifier here is a mistake in this file, not in the scenario.
    case .within, .inBackground, .reason, .for, .fails, .host: preconditionFailure("\(word) is not an action")
    }
  }

  private enum RampKeys: String, CodingKey, CaseIterable {
    case to, over, steps
  }

  /// `ramp: { to: SIZE, over: DURATION, steps: N }` (10 steps unless told).
  private static func ramp(_ value: any Decoder) throws -> StepAction {
    let ramp = try value.container(knownKeys: RampKeys.self)
    guard ramp.contains(.to), ramp.contains(.over) else { throw value.failure("a ramp needs to and over") }
    return .ramp(
      to: try ramp.superDecoder(forKey: .to).size(), over: try ramp.superDecoder(forKey: .over).duration(),
      steps: try ramp.readIfWritten(.steps) { try $0.wholeNumber(in: 1...1000) } ?? 10)
  }
}
