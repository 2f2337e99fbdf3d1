import Foundation
import JetsamConfig

/// A step as a scenario writes it (LABS.md, *Scenario files*): one action, and the modifiers that go with it. Its apps
/// must be among the scenario's, which decoding is given as its configuration.
extension Step: DecodableWithConfiguration {
  /// A step's keys: its actions first, in the order the error lists them, then the modifiers.
  enum Key: String, CodingKey, CaseIterable {
    case launch, relaunch, activate, background, suspend, resume, terminate, kill, wait, pressure, allocate, release,
      ramp, spike, charging, exercise, expect
    case within, inBackground, reason, `for`, fails, host

    /// The words that name what a step does: every key before the first modifier.
    static let actions = allCases.prefix { $0 != .within }
    /// The modifiers that belong to one action each.
    static let owners: KeyValuePairs<Key, Key> = [
      .inBackground: .launch, .reason: .kill, .for: .spike, .fails: .exercise,
    ]
  }

  /// The step written at `decoder`'s key path, its apps among the keys of `apps` (the scenario's).
  public init(from decoder: any Decoder, configuration apps: [String: LabApp]) throws {
    let c = try decoder.container(knownKeys: Key.self)
    let named = Key.actions.filter(c.contains)
    guard named.count == 1, let word = named.first else {
      throw decoder.failure(
        named.isEmpty
          ? "a step needs one action (\(Key.actions.map(\.stringValue).joined(separator: ", ")))"
          : "a step has one action, not \(named.map(\.stringValue).joined(separator: " and "))")
    }
    self.init(location: ConfigKeyPath.string(decoder.codingPath), action: try StepAction(word, of: c, apps: apps))
    for (modifier, owner) in Key.owners where c.contains(modifier) && word != owner {
      let article = "aeiou".contains(owner.stringValue.first!) ? "an" : "a"
      throw decoder.failure("\(modifier.stringValue): belongs to \(article) \(owner.stringValue) step")
    }
    within = try c.readIfWritten(.within) { try $0.duration() }
    // Which hosts there are is known only at the run (--host adds them): the runner checks the name.
    host = try c.decodeIfWritten(String.self, forKey: .host)
  }
}
