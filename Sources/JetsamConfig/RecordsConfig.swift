import FoundationEssentials
import JetsamProtocol

/// How the exit record log is kept: rotated by size and age (journald is the long-term archive), and how long a
/// stopping jetsamd waits for disk space before it leaves unwritten records for the next start.
public struct RecordsConfig: Sendable, Codable, Equatable {
  /// The log is rotated before a record would take it past this size.
  public var rotateSize = ByteSize(bytes: 16 << 20)
  /// …or once its oldest record is this old.
  public var rotateAge = ConfigDuration(.seconds(7 * 86_400))
  /// How many rotated logs are kept (`exits.jsonl.1` is the newest); older ones are deleted.
  public var keep = 4
  /// At stop or restart, how long jetsamd waits for records still being written, and retries those it could not
  /// write (a full disk), before it leaves them in the runtime directory for the next start.
  public var stopGrace = ConfigDuration(.seconds(10))

  /// The smallest rotation size accepted: below it a single jetsam record (with its snapshot) may not fit.
  public static let minimumRotateSize: Int64 = 1 << 20

  public init() {}
  enum CodingKeys: String, CodingKey, CaseIterable { case rotateSize, rotateAge, keep, stopGrace }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = RecordsConfig()
    rotateSize = try c.decodeIfPresent(ByteSize.self, forKey: .rotateSize) ?? d.rotateSize
    rotateAge = try c.decodeIfPresent(ConfigDuration.self, forKey: .rotateAge) ?? d.rotateAge
    keep = try c.decodeIfPresent(Int.self, forKey: .keep) ?? d.keep
    stopGrace = try c.decodeIfPresent(ConfigDuration.self, forKey: .stopGrace) ?? d.stopGrace
    if rotateSize.bytes < RecordsConfig.minimumRotateSize {
      throw DecodingError.dataCorruptedError(forKey: .rotateSize, in: c, debugDescription: "must be at least 1M")
    }
    if rotateAge.duration < .seconds(60) {
      throw DecodingError.dataCorruptedError(forKey: .rotateAge, in: c, debugDescription: "must be at least 1m")
    }
    if !(1...100).contains(keep) {
      throw DecodingError.dataCorruptedError(forKey: .keep, in: c, debugDescription: "must be from 1 to 100")
    }
    if stopGrace.duration > .seconds(60) {
      throw DecodingError.dataCorruptedError(
        forKey: .stopGrace, in: c, debugDescription: "must be at most 60s (systemd stops a unit after 90s)")
    }
  }
}
