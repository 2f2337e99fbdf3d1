import Foundation
import JetsamControlClient
import JetsamProtocol

/// One app's launch figures as the lab's reports show them (the HTML page's table, the check battery's card), from
/// the app's MetricKit-shaped payload (`jetsamctl metrics`, asked at the end of the run): launch, resume and hang
/// times as their histogram buckets, and each signpost's count.
struct LaunchFigures: Equatable {
  var app: String
  var launches: Int
  var launchTimes: String
  var resumes: Int
  var resumeTimes: String
  var hangs: Int
  var hangTimes: String
  /// MetricKit's `averageSuspendedMemory` as it wrote it (`12,346 kB`), or `—` if the app was never suspended.
  var suspendedMemory: String
  var signposts: String

  init(_ payload: MetricPayload) {
    app = payload.metaData.bundleIdentifier
    let launch = payload.applicationLaunchMetrics
    launches = launch?.histogrammedTimeToFirstDrawKey.total ?? 0
    launchTimes = Self.text(launch?.histogrammedTimeToFirstDrawKey)
    resumes = launch?.histogrammedResumeTime.total ?? 0
    resumeTimes = Self.text(launch?.histogrammedResumeTime)
    let hang = payload.applicationResponsivenessMetrics?.histogrammedAppHangTime
    hangs = hang?.total ?? 0
    hangTimes = Self.text(hang)
    suspendedMemory = payload.memoryMetrics?.averageSuspendedMemory?.averageValue ?? "—"
    signposts =
      (payload.signpostMetrics ?? []).map { signpost in
        "\(signpost.signpostName) ×\(signpost.totalSignpostCount)"
          + (signpost.signpostIntervalData.histogrammedSignpostDurations.total > 0
            ? " (" + Self.text(signpost.signpostIntervalData.histogrammedSignpostDurations) + ")" : "")
      }.joined(separator: ", ")
  }

  /// The card's line: `launch 100–250 ms ×1 · resume … · hangs none`.
  var line: String {
    "launch \(launches > 0 ? launchTimes : "none") · resume \(resumes > 0 ? resumeTimes : "none") · hangs "
      + (hangs > 0 ? hangTimes : "none") + " · suspended memory \(suspendedMemory)"
      + (signposts.isEmpty ? "" : " · signposts \(signposts)")
  }

  /// Buckets as `start–end ×count`, comma-separated, by start (MetricKit writes them keyed by index).
  static func text(_ histogram: MetricKitHistogram?) -> String {
    guard let histogram, histogram.total > 0 else { return "—" }
    return histogram.histogramValue.sorted { (Int($0.key) ?? 0) < (Int($1.key) ?? 0) }.map { _, bucket in
      "\(bucket.bucketStart.dropLast(3))–\(bucket.bucketEnd) ×\(bucket.bucketCount)"
    }.joined(separator: ", ")
  }

  /// The payloads of the run's apps since `started`, as jetsamd adds them up; nil if it would not answer.
  static func fetch(_ client: ControlClient, since started: Date) -> [MetricPayload]? {
    var request = ControlRequest(verb: .metrics)
    request.since = started.formatted(Date.ISO8601FormatStyle())
    return (try? client.send(request))?.metrics
  }
}

extension LabRun {
  /// The check battery's card lines for the run's launch figures: one per app (`APP: launch … · resume … · hangs …`).
  public var launchFigureLines: [String] {
    (metrics ?? []).map { "\($0.metaData.bundleIdentifier): " + LaunchFigures($0).line }
  }
}
