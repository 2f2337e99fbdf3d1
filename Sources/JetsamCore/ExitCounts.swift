/// One side's counts, encoded with MetricKit's keys (`cumulativeNormalAppExitCount`, …): the keys Apple's payloads
/// carry for that side always (0 included), any other reason only when it happened (a jetsam kill of a foreground
/// app at critical pressure has no foreground key in MetricKit; here it is `cumulativeMemoryPressureExitCount`).
public struct ExitCounts: Codable, Sendable, Equatable {
  public enum Section: Sendable { case foreground, background }

  public var counts: [ExitReason: Int] = [:]
  /// Which side it is (set by ``AppExitMetrics`` when decoded).
  var section: Section

  init(section: Section) { self.section = section }

  /// How many exits are counted.
  public var total: Int { counts.values.reduce(0, +) }

  /// Whether MetricKit's payloads carry `reason` for `section` always (a new reason must say, or this fails to
  /// build).
  static func isStandard(_ reason: ExitReason, in section: Section) -> Bool {
    switch reason {
    case .normalAppExit, .memoryResourceLimit, .badAccess, .abnormal, .illegalInstruction, .appWatchdog: true
    case .memoryPressure, .cpuResourceLimit, .suspendedWithLockedFile, .backgroundTaskAssertionTimeout:
      section == .background
    }
  }

  private struct Key: CodingKey {
    var stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    for reason in ExitReason.allCases {
      let count = counts[reason] ?? 0
      guard count > 0 || Self.isStandard(reason, in: section) else { continue }
      try container.encode(count, forKey: Key(stringValue: reason.metricKitCounterKey))
    }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    section = .background
    for reason in ExitReason.allCases {
      // Zeros are written for the standard keys; only exits that happened are counts.
      if let count = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: reason.metricKitCounterKey)),
        count > 0
      {
        counts[reason] = count
      }
    }
  }
}

extension ExitReason {
  /// The reason's counter in MetricKit's exit data: `cumulativeMemoryPressureExitCount`, … (`CPU` in capitals, as
  /// Apple writes it).
  public var metricKitCounterKey: String {
    switch self {
    case .normalAppExit: "cumulativeNormalAppExitCount"
    case .abnormal: "cumulativeAbnormalExitCount"
    case .memoryResourceLimit: "cumulativeMemoryResourceLimitExitCount"
    case .cpuResourceLimit: "cumulativeCPUResourceLimitExitCount"
    case .memoryPressure: "cumulativeMemoryPressureExitCount"
    case .badAccess: "cumulativeBadAccessExitCount"
    case .illegalInstruction: "cumulativeIllegalInstructionExitCount"
    case .appWatchdog: "cumulativeAppWatchdogExitCount"
    case .suspendedWithLockedFile: "cumulativeSuspendedWithLockedFileExitCount"
    case .backgroundTaskAssertionTimeout: "cumulativeBackgroundTaskAssertionTimeoutExitCount"
    }
  }
}
