import FoundationEssentials
import JetsamCore

/// A command that speaks for a program that does not speak the protocol: the config's `hooks.ready` (it succeeds once
/// the program is up) or `hooks.digest` (it prints a digest of the state the program holds; README, "Programs that
/// do not speak the protocol").
public struct CommandHook: Sendable, Codable, Equatable {
  /// The program and its arguments, run as the app's hooks run.
  public var command: [String]
  /// How long one run may take before it is killed (default: 5 s).
  public var timeout: ConfigDuration?
  /// `digest` only: how long the state it describes stays current (the saved digest's `validFor`).
  public var validFor: ConfigDuration?

  public init(command: [String], timeout: ConfigDuration? = nil, validFor: ConfigDuration? = nil) {
    self.command = command
    self.timeout = timeout
    self.validFor = validFor
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case command, timeout, validFor }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    command = try c.decode([String].self, forKey: .command)
    if let problem = CommandHook.problem(command: command) {
      throw DecodingError.dataCorruptedError(forKey: .command, in: c, debugDescription: problem)
    }
    timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout)
    if timeout?.duration == .zero {
      throw DecodingError.dataCorruptedError(forKey: .timeout, in: c, debugDescription: "must be above 0")
    }
    validFor = try c.decodeIfPresent(ConfigDuration.self, forKey: .validFor)
    if let validFor, let problem = CommandHook.problem(validFor: validFor.duration) {
      throw DecodingError.dataCorruptedError(forKey: .validFor, in: c, debugDescription: problem)
    }
  }

  /// What is wrong with a command's argv for execve, or nil.
  public static func problem(command: [String]) -> String? {
    if command.isEmpty || command[0].isEmpty { return "must name a program" }
    if command.contains(where: { $0.utf8.contains(0) }) { return "must not contain a NUL byte" }
    return nil
  }

  /// What is wrong with a digest's validity, or nil: the bounds of the protocol's `validFor`.
  public static func problem(validFor: Duration) -> String? {
    guard validFor > .zero, validFor <= AppMessage.maxValidFor else {
      return "must be above 0 and at most \(AppMessage.maxValidFor.components.seconds) seconds (366 days)"
    }
    return nil
  }
}
