import FoundationEssentials

/// How apps are suspended.
public struct SuspendConfig: Sendable, Codable, Equatable {
  public enum Mode: String, Sendable, Codable, Equatable {
    /// SIGSTOP to every process of the app's cgroup (state `T`); SIGCONT to resume.
    case signal
    /// The cgroup v2 freezer (`cgroup.freeze`; state `S`), also on the hybrid layout's unified hierarchy.
    case freezer
  }
  public var mode: Mode = .signal
  /// A background app is suspended after this long; null: only on request.
  public var backgroundGrace: ConfigDuration? = ConfigDuration(.seconds(10))
  /// How long an app's processes may take to stop; past it the app counts as suspended, marked incomplete.
  public var timeout = ConfigDuration(.seconds(1))
  /// iOS's escalation: a running background app jetsam picks at urgent is suspended first (its background tasks
  /// warned and ended), then killed as a suspended app; false: killed while it runs.
  public var beforeJetsamKill = true

  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case mode, backgroundGrace, timeout, beforeJetsamKill }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = SuspendConfig()
    if let text = try c.decodeIfPresent(String.self, forKey: .mode) {
      guard let parsed = Mode(rawValue: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: .mode, in: c, debugDescription: "\"\(text)\" is not a suspend mode (signal, freezer)")
      }
      mode = parsed
    }
    backgroundGrace =
      c.contains(.backgroundGrace)
      ? try c.decodeIfPresent(ConfigDuration.self, forKey: .backgroundGrace) : d.backgroundGrace
    timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? d.timeout
    beforeJetsamKill = try c.decodeIfPresent(Bool.self, forKey: .beforeJetsamKill) ?? d.beforeJetsamKill
  }
}
