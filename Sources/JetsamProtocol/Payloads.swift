import JetsamCore

/// An app's metrics in the layout of MetricKit's `MXMetricPayload` over the time the records cover: the exit counts
/// (`applicationExitMetrics`), and where measured the launch and resume times, hangs, time in each state, CPU time and
/// peak memory (``MetricTotals`` adds them up).
public struct MetricPayload: Codable, Sendable, Equatable {
  public var appVersion = ""
  /// MetricKit's time format: `2026-12-01 16:22:05 +0000`.
  public var timeStampBegin: String
  public var timeStampEnd: String
  public var metaData: PayloadMetaData
  public var applicationExitMetrics: AppExitMetrics
  public var applicationLaunchMetrics: AppLaunchMetricsPayload?
  public var applicationResponsivenessMetrics: AppResponsivenessMetricsPayload?
  public var applicationTimeMetrics: AppTimeMetricsPayload?
  public var cpuMetrics: CPUMetricsPayload?
  public var memoryMetrics: MemoryMetricsPayload?
  public var signpostMetrics: [SignpostMetricPayload]?
  public var diskIOMetrics: DiskIOMetricsPayload?

  public init(
    timeStampBegin: String, timeStampEnd: String, metaData: PayloadMetaData, applicationExitMetrics: AppExitMetrics
  ) {
    self.timeStampBegin = timeStampBegin
    self.timeStampEnd = timeStampEnd
    self.metaData = metaData
    self.applicationExitMetrics = applicationExitMetrics
  }
}

/// MetricKit's `MXMetaData` for a payload.
public struct PayloadMetaData: Codable, Sendable, Equatable {
  /// The app's name.
  public var bundleIdentifier: String
  public var appBuildVersion = ""
  public var osVersion: String
  public var platformArchitecture: String
  public var deviceType: String
  public var regionFormat = "C"

  public init(bundleIdentifier: String, osVersion: String, platformArchitecture: String, deviceType: String) {
    self.bundleIdentifier = bundleIdentifier
    self.osVersion = osVersion
    self.platformArchitecture = platformArchitecture
    self.deviceType = deviceType
  }
}

/// An app's diagnostics in the layout of MetricKit's `MXDiagnosticPayload`: arrays per kind, each diagnostic with
/// its call stack tree and metadata.
public struct DiagnosticPayload: Codable, Sendable, Equatable {
  public var timeStampBegin: String
  public var timeStampEnd: String
  public var crashDiagnostics: [MetricKitDiagnostic]?
  public var hangDiagnostics: [MetricKitDiagnostic]?
  public var cpuExceptionDiagnostics: [MetricKitDiagnostic]?
  public var diskWriteExceptionDiagnostics: [MetricKitDiagnostic]?

  /// One payload per app (sorted by name), each holding that app's diagnostics oldest first.
  public static func payloads(_ records: [DiagnosticRecord]) -> [DiagnosticPayload] {
    let byApp = Dictionary(grouping: records, by: \.app)
    return byApp.keys.sorted().map { app in
      let records = byApp[app]!.sorted { $0.id < $1.id }
      func of(_ kind: DiagnosticKind) -> [MetricKitDiagnostic]? {
        let matching = records.filter { $0.kind == kind }.map(\.diagnostic)
        return matching.isEmpty ? nil : matching
      }
      return DiagnosticPayload(
        timeStampBegin: metricKitTime(records.first!.time), timeStampEnd: metricKitTime(records.last!.time),
        crashDiagnostics: of(.crash), hangDiagnostics: of(.hang), cpuExceptionDiagnostics: of(.cpuException),
        diskWriteExceptionDiagnostics: of(.diskWriteException))
    }
  }
}

/// An RFC 3339 time (`2026-12-01T16:22:05.123Z`) as MetricKit writes times: `2026-12-01 16:22:05 +0000`. Other
/// text is returned as it is.
public func metricKitTime(_ rfc3339: String) -> String {
  let utf8 = Array(rfc3339.utf8)
  guard utf8.count >= 20, utf8[10] == UInt8(ascii: "T"), rfc3339.hasSuffix("Z") else { return rfc3339 }
  return String(decoding: utf8[0..<10], as: UTF8.self) + " " + String(decoding: utf8[11..<19], as: UTF8.self)
    + " +0000"
}
