import JetsamReportPage

/// What a simulation found: the figures `jetsam-sim` prints, as text or as JSON.
///
/// Only simulated quantities: nothing here depends on the machine or the wall clock, so the same model, population,
/// duration and seed give the same report byte for byte.
public struct SimReport: Codable, Sendable, Equatable {
  /// The model's name.
  public var model: String
  /// The seed of every draw.
  public var seed: UInt64
  /// Apps in the population.
  public var apps: Int
  /// Simulated time.
  public var durationSeconds: Double
  /// Events fed to the policy: every call into `JetsamPolicy.handle` the run made, refused ones included. It depends
  /// on the seed alone, so that `make bench` can divide it by a run's wall time for the core's events per second and
  /// two builds of the policy are compared on the same work.
  public var policyEvents: Int
  /// Requests the policy refused (a user's switch to an app it could not take then).
  public var refusedRequests: Int
  public var launches: Launches
  public var kills: Kills
  /// Seconds spent at each pressure level (`normal`, `warning`, `urgent`, `critical`).
  public var secondsAtLevel: [String: Double]
  public var resident: Resident
  /// The run cut into equal slices of simulated time (at most ``Bucket/most``, whatever the duration and the
  /// population), each with its time at each level and its kills: what the HTML report draws.
  public var buckets: [Bucket]

  /// Launches and returns.
  public struct Launches: Codable, Sendable, Equatable {
    /// Cold launches the user waited for (the app was not running).
    public var coldByUser = 0
    /// Cold launches into the background.
    public var coldInBackground = 0
    /// Cold launches of an app whose last process jetsam killed: what memory pressure cost the user.
    public var coldAfterJetsam = 0
    /// Switches to an app that was still running (resumed or brought back, no launch).
    public var warmReturns = 0
  }

  /// Kills, by reason and by the state the victim was in.
  public struct Kills: Codable, Sendable, Equatable {
    /// Every kill, whatever its reason.
    public var total = 0
    /// Kills by exit reason (MetricKit's names, as exit records have them).
    public var byReason: [String: Int] = [:]
    /// Coarse state at the kill: `foreground`, `background`, `suspended`.
    public var byState: [String: Int] = [:]
    /// Kills of apps the user had left with unsaved state.
    public var withUnsavedState = 0
  }

  /// How many apps held memory over time.
  public struct Resident: Codable, Sendable, Equatable {
    /// The least at a sampled instant after the start.
    public var min: Int
    public var max: Int
    /// Time-weighted mean.
    public var mean: Double
    /// The count at regular instants.
    public var timeline: [Point]
  }

  /// One slice of simulated time.
  public struct Bucket: Codable, Sendable, Equatable {
    /// The most buckets a run is cut into (a day in 5-minute slices); runs shorter than this many seconds have one a
    /// second, and the last bucket may be shorter.
    public static let most = 288

    /// Simulated seconds since the start at which the bucket begins.
    public var startSeconds: Double
    /// Its length in simulated seconds.
    public var seconds: Double
    /// Seconds spent at each pressure level within it; levels it never reached are left out.
    public var secondsAtLevel: [String: Double] = [:]
    /// Kills within it by exit reason; empty when there were none.
    public var killsByReason: [String: Int] = [:]

    /// An empty bucket from `startSeconds`, `seconds` long.
    public init(startSeconds: Double, seconds: Double) {
      self.startSeconds = startSeconds
      self.seconds = seconds
    }
  }

  /// One instant of the resident timeline.
  public struct Point: Codable, Sendable, Equatable {
    /// Simulated seconds since the start.
    public var seconds: Double
    /// Apps holding memory then.
    public var apps: Int
  }

  /// The report for people.
  public var text: String {
    func fixed(_ value: Double) -> String { ReportPage.fixed(value, 2) }
    var lines = [
      "model \(model), \(apps) apps, \(fixed(durationSeconds / 3600)) h simulated, seed \(seed)",
      "policy events: \(policyEvents) (\(refusedRequests) requests refused)",
      "launches: \(launches.coldByUser) cold by the user, \(launches.coldInBackground) cold in the background, "
        + "\(launches.coldAfterJetsam) cold after a jetsam kill; \(launches.warmReturns) warm returns",
      "kills: \(kills.total), \(kills.withUnsavedState) with unsaved state",
    ]
    for (reason, count) in kills.byReason.sorted(by: { $0.key < $1.key }) {
      lines.append("  reason \(reason): \(count)")
    }
    for (state, count) in kills.byState.sorted(by: { $0.key < $1.key }) { lines.append("  state \(state): \(count)") }
    lines.append("time at each pressure level:")
    for level in ["normal", "warning", "urgent", "critical"] {
      let seconds = secondsAtLevel[level] ?? 0
      let share = durationSeconds > 0 ? seconds / durationSeconds * 100 : 0
      lines.append("  \(level): \(fixed(seconds)) s (\(fixed(share)) %)")
    }
    lines.append("resident apps: min \(resident.min), mean \(fixed(resident.mean)), max \(resident.max)")
    return lines.joined(separator: "\n") + "\n"
  }
}
