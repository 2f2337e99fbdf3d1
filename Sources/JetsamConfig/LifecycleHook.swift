import FoundationEssentials
import JetsamCore
import JetsamValues

/// What to do for a program that cannot answer a lifecycle event itself.
public struct LifecycleHook: Sendable, Codable, Equatable {
  /// Run this command inside the app's cgroup; its exit acknowledges the event.
  public var command: [String]?
  /// Or send this signal (e.g. `SIGUSR1`) to the app's processes, fire-and-forget.
  public var signal: Signal?
  /// The command's deadline (default: the event's watchdog deadline).
  public var timeout: ConfigDuration?

  /// A command hook: `command` runs for the event, within `timeout` (nil: the event's deadline).
  public init(command: [String], timeout: ConfigDuration? = nil) {
    self.command = command
    self.timeout = timeout
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case command, signal, timeout }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    command = try c.decodeIfPresent([String].self, forKey: .command)
    timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout)
    if let name = try c.decodeIfPresent(String.self, forKey: .signal) {
      guard let named = Signal(name: name), LifecycleHook.signals.contains(named) else {
        throw DecodingError.dataCorruptedError(
          forKey: .signal, in: c,
          debugDescription:
            "\"\(name)\" is not a signal a hook may send (\(LifecycleHook.signals.map(\.description).joined(separator: ", ")))"
        )
      }
      signal = named
    }
    if (command == nil) == (signal == nil) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: c.codingPath, debugDescription: "give exactly one of command or signal"))
    }
    if let command, let problem = CommandHook.problem(command: command) {
      throw DecodingError.dataCorruptedError(forKey: .command, in: c, debugDescription: problem)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(command, forKey: .command)
    try c.encodeIfPresent(signal?.description, forKey: .signal)
    try c.encodeIfPresent(timeout, forKey: .timeout)
  }

  /// The signals a hook may send: those an app can catch to do something (never SIGKILL or SIGSTOP).
  static let signals: [Signal] = [
    .hangup, .interrupt, .quit, .user1, .user2, .terminate, .resume, .windowChange,
  ]
}
