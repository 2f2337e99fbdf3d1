import FoundationEssentials

/// The config's `diagnostics`: how call stacks are taken for hang, CPU exception and crash diagnostics, and how
/// many diagnostics are kept.
public struct DiagnosticsSettings: Sendable, Codable, Equatable {
  /// Whether call stacks are taken (ptrace through `jetsam-stack`); false: diagnostics carry their figures only.
  public var callStacks = true
  /// Whether apps get jetsam's crash reporter (libjetsam-crash.so, preloaded), so that a crash leaves a diagnostic
  /// with the faulting thread's stack.
  public var crashes = true
  /// The longest one capture may take (the tool is killed past it and the diagnostic says so); a watchdog kill
  /// waits at most this long for its hang's stacks.
  public var captureBudget = ConfigDuration(.seconds(1))
  /// Stack samples per CPU exception, and the time between them.
  public var cpuSamples = 10
  public var cpuSampleInterval = ConfigDuration(.milliseconds(100))
  /// How many diagnostics are kept in `<stateDirectory>/diagnostics` (the oldest go first).
  public var keep = 1_000

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable {
    case callStacks, crashes, captureBudget, cpuSamples, cpuSampleInterval, keep
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = DiagnosticsSettings()
    callStacks = try c.decodeIfPresent(Bool.self, forKey: .callStacks) ?? d.callStacks
    crashes = try c.decodeIfPresent(Bool.self, forKey: .crashes) ?? d.crashes
    captureBudget = try c.decodeIfPresent(ConfigDuration.self, forKey: .captureBudget) ?? d.captureBudget
    cpuSamples = try c.decodeIfPresent(Int.self, forKey: .cpuSamples) ?? d.cpuSamples
    cpuSampleInterval = try c.decodeIfPresent(ConfigDuration.self, forKey: .cpuSampleInterval) ?? d.cpuSampleInterval
    keep = try c.decodeIfPresent(Int.self, forKey: .keep) ?? d.keep
    if !(captureBudget.duration >= .milliseconds(10) && captureBudget.duration <= .seconds(60)) {
      throw DecodingError.dataCorruptedError(
        forKey: .captureBudget, in: c, debugDescription: "must be from 10ms to 60s")
    }
    if !(1...100).contains(cpuSamples) {
      throw DecodingError.dataCorruptedError(forKey: .cpuSamples, in: c, debugDescription: "must be from 1 to 100")
    }
    if cpuSampleInterval.duration > .seconds(10) {
      throw DecodingError.dataCorruptedError(forKey: .cpuSampleInterval, in: c, debugDescription: "must be at most 10s")
    }
    if !(1...100_000).contains(keep) {
      throw DecodingError.dataCorruptedError(forKey: .keep, in: c, debugDescription: "must be from 1 to 100000")
    }
  }
}
