import FoundationEssentials
import JetsamCore

/// The config's `cpuMonitor` (daemon-wide, and per app over it): the CPU limits of background and foreground apps,
/// each fatal or non-fatal (`config/jetsamd.json5` documents them). A limit an entry leaves out is the one it
/// stands over (the daemon-wide one, or iOS's); `null` turns it off.
public struct CPUMonitorSettings: Sendable, Codable, Equatable {
  /// One limit as given: off (`null`), or a limit. A leaf left out is nil where this type is held.
  public enum Limit: Sendable, Equatable {
    case off
    case limit(CPUBudgetSettings)

    var budget: CPUBudget? {
      if case .limit(let settings) = self { return settings.budget }
      return nil
    }
  }

  public var backgroundFatal: Limit?
  public var backgroundNonFatal: Limit?
  /// Foreground apps have a non-fatal limit only: iOS does not kill an app the user is looking at for its CPU.
  public var foregroundNonFatal: Limit?

  public init(backgroundFatal: Limit? = nil, backgroundNonFatal: Limit? = nil, foregroundNonFatal: Limit? = nil) {
    self.backgroundFatal = backgroundFatal
    self.backgroundNonFatal = backgroundNonFatal
    self.foregroundNonFatal = foregroundNonFatal
  }

  /// iOS's limits, as its crash logs state them: background apps killed on reaching 80 % of a core over 60 s and
  /// reported on reaching 50 % over 180 s; foreground apps not watched.
  public static let standard = CPUMonitorSettings(
    backgroundFatal: .limit(CPUBudgetSettings(CPUMonitorConfig.iOSBackground.fatal!)),
    backgroundNonFatal: .limit(CPUBudgetSettings(CPUMonitorConfig.iOSBackground.nonFatal!)),
    foregroundNonFatal: .off)

  enum CodingKeys: String, CodingKey, CaseIterable { case background, foreground }
  enum StateKeys: String, CodingKey, CaseIterable { case fatal, nonFatal }
  /// Keys of the earlier shape (one budget per state), named in its error.
  private enum FormerKeys: String, CodingKey, CaseIterable { case limit, window, killAfter }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if c.contains(.background) {
      if try c.decodeNil(forKey: .background) {
        (backgroundFatal, backgroundNonFatal) = (.off, .off)
      } else {
        let state = try Self.stateContainer(c, .background)
        backgroundFatal = try Self.limit(state, .fatal)
        backgroundNonFatal = try Self.limit(state, .nonFatal)
      }
    }
    if c.contains(.foreground) {
      if try c.decodeNil(forKey: .foreground) {
        foregroundNonFatal = .off
      } else {
        let state = try Self.stateContainer(c, .foreground)
        if state.contains(.fatal) {
          throw DecodingError.dataCorruptedError(
            forKey: .fatal, in: state,
            debugDescription: "is for background apps only: as on iOS, a foreground app's CPU is reported "
              + "(nonFatal), never a reason to kill it")
        }
        foregroundNonFatal = try Self.limit(state, .nonFatal)
      }
    }
  }

  /// A state's object, after checking its keys (naming the earlier one-budget shape if that is what it is).
  private static func stateContainer(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws
    -> KeyedDecodingContainer<StateKeys>
  {
    let former = try c.nestedContainer(keyedBy: FormerKeys.self, forKey: key)
    if let old = FormerKeys.allCases.first(where: { former.contains($0) }) {
      throw DecodingError.dataCorruptedError(
        forKey: old, in: former,
        debugDescription: "the limits are now `fatal: { limit, window }` (killed at once on reaching it, as on "
          + "iOS) and `nonFatal: { limit, window }` (a CPU exception only); killAfter is gone")
    }
    try c.superDecoder(forKey: key).rejectUnknownKeys(StateKeys.self)
    return try c.nestedContainer(keyedBy: StateKeys.self, forKey: key)
  }

  private static func limit(_ state: KeyedDecodingContainer<StateKeys>, _ key: StateKeys) throws -> Limit? {
    guard state.contains(key) else { return nil }
    if try state.decodeNil(forKey: key) { return .off }
    return .limit(try state.decode(CPUBudgetSettings.self, forKey: key))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    func put(_ limit: Limit?, _ key: StateKeys, in state: inout KeyedEncodingContainer<StateKeys>) throws {
      switch limit {
      case nil: break
      case .off: try state.encodeNil(forKey: key)
      case .limit(let settings): try state.encode(settings, forKey: key)
      }
    }
    if backgroundFatal != nil || backgroundNonFatal != nil {
      var background = c.nestedContainer(keyedBy: StateKeys.self, forKey: .background)
      try put(backgroundFatal, .fatal, in: &background)
      try put(backgroundNonFatal, .nonFatal, in: &background)
    }
    if foregroundNonFatal != nil {
      var foreground = c.nestedContainer(keyedBy: StateKeys.self, forKey: .foreground)
      try put(foregroundNonFatal, .nonFatal, in: &foreground)
    }
  }

  /// These settings with the limits they leave out taken from `defaults`.
  public func over(_ defaults: CPUMonitorSettings) -> CPUMonitorSettings {
    CPUMonitorSettings(
      backgroundFatal: backgroundFatal ?? defaults.backgroundFatal,
      backgroundNonFatal: backgroundNonFatal ?? defaults.backgroundNonFatal,
      foregroundNonFatal: foregroundNonFatal ?? defaults.foregroundNonFatal)
  }

  /// The limits for the policy, scaled by the config's `timeScale` (a limit left out is off: resolve these
  /// ``over(_:)`` the ones they stand over first).
  public func policyConfig(timeScale: Double) -> CPUMonitorConfig {
    CPUMonitorConfig(
      background: CPUStateLimits(fatal: backgroundFatal?.budget, nonFatal: backgroundNonFatal?.budget),
      foreground: foregroundNonFatal?.budget
    ).scaled(by: timeScale)
  }
}
