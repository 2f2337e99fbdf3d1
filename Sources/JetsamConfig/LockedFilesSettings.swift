import FoundationEssentials
import JetsamCore

/// The config's `lockedFiles` (daemon-wide, and per app over it): what an app that holds file locks as it is
/// suspended gets. Keys an app's entry leaves out are the daemon-wide ones.
public struct LockedFilesSettings: Sendable, Codable, Equatable {
  /// `kill` (iOS, 0xdead10cc), `defer` (Android's freezer: retried later) or `ignore`.
  public var action: LockedFileAction?
  /// Only locks on files at or below these absolute paths count; empty: every lock.
  public var paths: [String]?
  /// Under `defer`, how long until the suspension is tried again.
  public var retry: ConfigDuration?

  public init(action: LockedFileAction? = nil, paths: [String]? = nil, retry: ConfigDuration? = nil) {
    self.action = action
    self.paths = paths
    self.retry = retry
  }

  /// iOS's rule: kill, whatever the file.
  public static let standard = LockedFilesSettings(action: .kill, paths: [], retry: ConfigDuration(.seconds(1)))

  enum CodingKeys: String, CodingKey, CaseIterable { case action, paths, retry }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    action = try c.decodeChoiceIfPresent(LockedFileAction.self, forKey: .action)
    paths = try c.decodeIfPresent([String].self, forKey: .paths)
    if let bad = paths?.first(where: { !$0.hasPrefix("/") || $0.utf8.contains(0) }) {
      throw DecodingError.dataCorruptedError(
        forKey: .paths, in: c, debugDescription: "\"\(bad)\" is not an absolute path")
    }
    retry = try c.decodeIfPresent(ConfigDuration.self, forKey: .retry)
    if let retry, retry.duration < .milliseconds(10) {
      throw DecodingError.dataCorruptedError(forKey: .retry, in: c, debugDescription: "must be at least 10ms")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(action?.rawValue, forKey: .action)
    try c.encodeIfPresent(paths, forKey: .paths)
    try c.encodeIfPresent(retry, forKey: .retry)
  }

  /// These settings with what they leave out taken from `defaults`.
  public func over(_ defaults: LockedFilesSettings) -> LockedFilesSettings {
    LockedFilesSettings(
      action: action ?? defaults.action, paths: paths ?? defaults.paths, retry: retry ?? defaults.retry)
  }

  /// The rule for the policy (anything still unset is iOS's).
  public var rule: LockedFileRule {
    let whole = over(.standard)
    return LockedFileRule(action: whole.action!, paths: whole.paths!, retry: whole.retry!.duration)
  }
}
