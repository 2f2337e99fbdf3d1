import JetsamCore
import JetsamProtocol

/// What jetsamd counted since it started, for the Prometheus exposition: exits by app, reason and state, jetsam's
/// kills, watchdog kills by event, restoration verdicts. Counters start from zero at each start, as Prometheus
/// counters do (rate() and increase() take the reset in their stride).
///
/// App labels are bounded: configured apps always have their own; ad-hoc apps (launched with a command) get theirs
/// up to ``maxAdHocApps`` distinct names, after which further ad-hoc names are counted as `app="other"`, so that a
/// script launching endless new names cannot grow the exposition (and a fleet's series) without bound.
struct ExitCounters {
  /// Distinct ad-hoc app names with a label of their own.
  static let maxAdHocApps = 100
  /// The label of the ad-hoc apps beyond ``maxAdHocApps``.
  static let overflowApp = "other"

  struct ExitKey: Hashable {
    var app: String
    var reason: ExitReason
    var state: CoarseState
  }

  struct VerdictKey: Hashable {
    var app: String
    var verdict: String
  }

  private(set) var exits: [ExitKey: Int] = [:]
  /// jetsam's own kills (its policy's, and the kernel's at the memory cap jetsam set: ``ExitAgent/isJetsamKill``),
  /// by reason.
  private(set) var jetsamKills: [ExitReason: Int] = [:]
  private(set) var watchdogKills: [String: Int] = [:]
  private(set) var verdicts: [VerdictKey: Int] = [:]
  /// The launch figures, CPU time and peak memory of the records counted, by app label (``LaunchSeries``).
  private(set) var launches: [String: MetricTotals] = [:]
  private var adHocLabels: Set<String> = []

  /// The label an app's series carry.
  mutating func label(for app: String, configured: Bool) -> String {
    if configured || adHocLabels.contains(app) { return app }
    guard adHocLabels.count < Self.maxAdHocApps else { return Self.overflowApp }
    adHocLabels.insert(app)
    return app
  }

  /// The label a running app's gauges carry, without claiming one of the ad-hoc labels (its first record does).
  func currentLabel(for app: String, configured: Bool) -> String {
    configured || adHocLabels.contains(app) || adHocLabels.count < Self.maxAdHocApps ? app : Self.overflowApp
  }

  /// Counts a durable exit record.
  mutating func count(_ record: ExitRecord, configured: Bool) {
    let app = label(for: record.app, configured: configured)
    let cause = record.cause
    exits[ExitKey(app: app, reason: cause.reason, state: record.lifecycle.state), default: 0] += 1
    launches[app, default: MetricTotals()].count(record)
    if cause.endedBy?.isJetsamKill == true { jetsamKills[cause.reason, default: 0] += 1 }
    if cause.reason == .appWatchdog, let event = record.evidence.watchdogEvent { watchdogKills[event, default: 0] += 1 }
  }

  /// Counts a restoration verdict.
  mutating func countVerdict(app: String, verdict: RestorationVerdict, configured: Bool) {
    verdicts[VerdictKey(app: label(for: app, configured: configured), verdict: verdict.rawValue), default: 0] += 1
  }
}
