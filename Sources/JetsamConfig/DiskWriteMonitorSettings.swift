import FoundationEssentials
import JetsamCore
import JetsamProtocol

/// The config's `diskWriteMonitor` (daemon-wide, and per app over it): `{ limit: "1G", window: "24h" }`, iOS's
/// figures by default; `null` turns the monitor off. Keys an app's entry leaves out are the daemon-wide ones.
public struct DiskWriteMonitorSettings: Sendable, Codable, Equatable {
  /// Bytes an app may write within the window before a disk-write exception.
  public var limit: ByteSize?
  /// The trailing window, scaled by the config's `timeScale`.
  public var window: ConfigDuration?
  /// Written `null`: not watched (an app's `null` turns it off for that app alone).
  public var off = false

  public init(limit: ByteSize? = nil, window: ConfigDuration? = nil, off: Bool = false) {
    self.limit = limit
    self.window = window
    self.off = off
  }

  /// iOS's: 1 GB in 24 hours (MXDiskWriteExceptionDiagnostic).
  public static let standard = DiskWriteMonitorSettings(
    limit: ByteSize(bytes: DiskWriteLimit.iOS.bytes), window: ConfigDuration(DiskWriteLimit.iOS.window))

  /// Turned off (`null`).
  public static let disabled = DiskWriteMonitorSettings(off: true)

  enum CodingKeys: String, CodingKey, CaseIterable { case limit, window }

  /// Decodes an object (the parent turns `null` into ``disabled``: ``decode(_:forKey:in:)``).
  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    limit = try c.decodeIfPresent(ByteSize.self, forKey: .limit)
    if let limit, limit.bytes < 1 {
      throw DecodingError.dataCorruptedError(forKey: .limit, in: c, debugDescription: "must be at least 1 byte")
    }
    window = try c.decodeIfPresent(ConfigDuration.self, forKey: .window)
    if let window, window.duration < .seconds(1) {
      throw DecodingError.dataCorruptedError(
        forKey: .window, in: c, debugDescription: "must be at least 1s (the monitor reads twelve times a window)")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    if off {
      var single = encoder.singleValueContainer()
      try single.encodeNil()
      return
    }
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(limit, forKey: .limit)
    try c.encodeIfPresent(window, forKey: .window)
  }

  /// The value of `key` in `container`: nil when absent, ``disabled`` when `null`.
  static func decode<Key: CodingKey>(forKey key: Key, in container: KeyedDecodingContainer<Key>) throws
    -> DiskWriteMonitorSettings?
  {
    guard container.contains(key) else { return nil }
    if try container.decodeNil(forKey: key) { return .disabled }
    return try container.decode(DiskWriteMonitorSettings.self, forKey: key)
  }

  /// These settings with what they leave out taken from `defaults`: an app's `null` is off whatever the daemon says;
  /// an app that names a limit or a window is watched even where the daemon-wide monitor is off (the rest from iOS's).
  public func over(_ defaults: DiskWriteMonitorSettings) -> DiskWriteMonitorSettings {
    if off { return self }
    let base = defaults.off ? (limit == nil && window == nil ? defaults : .standard) : defaults
    if base.off { return base }
    return DiskWriteMonitorSettings(limit: limit ?? base.limit, window: window ?? base.window)
  }

  /// The limit for the policy, scaled by `timeScale` (anything still unset is iOS's); nil when off.
  public func limit(timeScale: Double) -> DiskWriteLimit? {
    if off { return nil }
    let whole = over(.standard)
    return DiskWriteLimit(bytes: whole.limit!.bytes, window: whole.window!.duration).scaled(by: timeScale)
  }
}
