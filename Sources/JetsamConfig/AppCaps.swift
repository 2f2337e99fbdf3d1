import FoundationEssentials
import JetsamProtocol

/// Resource caps of an app (each nil: unlimited).
public struct AppCaps: Sendable, Codable, Equatable {
  /// Hard memory cap: the kernel OOM-kills the app past it (recorded as memoryResourceLimit).
  public var memoryLimit: ByteSize? = nil
  /// CPU quota in percent of one core (150 = one and a half cores).
  public var cpuLimit: Double? = nil
  /// Most processes and threads the app may have (a fork bomb stays inside).
  public var pidsLimit: Int? = 512

  public init(memoryLimit: ByteSize? = nil, cpuLimit: Double? = nil, pidsLimit: Int? = 512) {
    self.memoryLimit = memoryLimit
    self.cpuLimit = cpuLimit
    self.pidsLimit = pidsLimit
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case memoryLimit, cpuLimit, pidsLimit }

  /// CPU caps the kernel's `cpu.max` takes as jetsam writes it, in percent of one core.
  public static let cpuPercents: ClosedRange<Double> = 1...100_000

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self = try AppCaps.decode(from: c, memory: .memoryLimit, cpu: .cpuLimit, pids: .pidsLimit)
  }

  /// Reads and checks the three cap keys from any table that holds them (`defaults`, or an app's own table).
  static func decode<Key: CodingKey>(from c: KeyedDecodingContainer<Key>, memory: Key, cpu: Key, pids: Key) throws
    -> AppCaps
  {
    let caps = AppCaps(
      memoryLimit: try c.decodeIfPresent(ByteSize.self, forKey: memory),
      cpuLimit: try c.decodeIfPresent(Double.self, forKey: cpu),
      pidsLimit: try c.decodeIfPresent(Int.self, forKey: pids))
    if let limit = caps.cpuLimit, !AppCaps.cpuPercents.contains(limit) {
      throw DecodingError.dataCorruptedError(
        forKey: cpu, in: c, debugDescription: "\(limit) is not a CPU cap (1 to 100000 percent of a core)")
    }
    // The kernel's own ceiling on pids (PID_MAX_LIMIT).
    if let limit = caps.pidsLimit, !(1...4_194_304).contains(limit) {
      throw DecodingError.dataCorruptedError(forKey: pids, in: c, debugDescription: "must be from 1 to 4194304")
    }
    return caps
  }

  /// These caps with every cap `other` sets taking precedence.
  public func overridden(by other: AppCaps?) -> AppCaps {
    guard let other else { return self }
    return AppCaps(
      memoryLimit: other.memoryLimit ?? memoryLimit, cpuLimit: other.cpuLimit ?? cpuLimit,
      pidsLimit: other.pidsLimit ?? pidsLimit)
  }
}
