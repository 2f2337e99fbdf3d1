import FoundationEssentials

/// The emulated device: its RAM and where its pressure levels start.
public struct DeviceConfig: Sendable, Codable, Equatable {
  /// The device's RAM, or `host` to make the device the whole machine (MemAvailable).
  public var ram: RAMSetting = .bytes(2 << 30)
  /// The device cgroup's name, created under the daemon's own cgroup.
  public var cgroupName = "jetsam-device"
  /// Per-level thresholds of memory available to the device.
  public var thresholds = ThresholdConfig()
  /// A CPU cap for all apps together (percent of one core), so that busy apps never starve the daemon.
  public var appsCPULimit: Double? = nil

  public init() {}

  enum CodingKeys: String, CodingKey, CaseIterable { case ram, cgroupName, thresholds, appsCPULimit }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = DeviceConfig()
    ram = try c.decodeIfPresent(RAMSetting.self, forKey: .ram) ?? d.ram
    cgroupName = try c.decodeIfPresent(String.self, forKey: .cgroupName) ?? d.cgroupName
    thresholds = try c.decodeIfPresent(ThresholdConfig.self, forKey: .thresholds) ?? d.thresholds
    appsCPULimit = try c.decodeIfPresent(Double.self, forKey: .appsCPULimit)
    if let limit = appsCPULimit, !AppCaps.cpuPercents.contains(limit) {
      throw DecodingError.dataCorruptedError(
        forKey: .appsCPULimit, in: c, debugDescription: "\(limit) is not a CPU cap (1 to 100000 percent of a core)")
    }
    if cgroupName.isEmpty || cgroupName.contains("/") || cgroupName.hasPrefix(".") {
      throw DecodingError.dataCorruptedError(
        forKey: .cgroupName, in: c, debugDescription: "\"\(cgroupName)\" is not a plain cgroup name")
    }
  }
}
