import JetsamReportPage

/// The memory a simulation needs at its peak, estimated before it starts, so that `jetsam-sim` can refuse a
/// population this machine cannot hold rather than be ended by the kernel's OOM killer part way through.
///
/// Almost all of it is the policy's own state: `JetsamPolicy` keeps every configured app (its entry in the policy's
/// table, its boxed settings and process slot), and the simulation adds its own table of the population. Each app
/// that has ended once also leaves its last exit record with the policy, and a jetsam kill's record holds a snapshot
/// of every app running then. The figures below are peak RSS measured on the release build (x86_64, glibc; README,
/// the jetsam-sim section), with a margin, so that the estimate errs high.
public struct SimMemoryEstimate: Sendable, Equatable {
  /// What any run needs whatever its population: the program, its libraries, the report. Measured: 21 MB.
  public static let baseBytes: Int64 = 64 << 20
  /// Each app of the population. Measured: 1,974 to 2,336 bytes (the policy's table grows by doubling, so the
  /// figure depends on how full it is, and while it grows the old and the new table are both held).
  public static let bytesPerApp: Int64 = 2_560
  /// Each app that ended at least once, besides its snapshot entries: its last exit record.
  public static let bytesPerEndedApp: Int64 = 1_024
  /// Each entry of an ended app's kill snapshot (one per running app at the kill). Measured with what an ended app
  /// costs in all: 2,245 bytes on `phone-4gb` (about 24 apps fit, see ``residentApps``), 3,652 on `phone-8gb` (43).
  public static let bytesPerSnapshotEntry: Int64 = 128

  /// The estimate, in bytes.
  public let bytes: Int64

  /// The peak memory of a run of `model` with `apps` apps for `duration`.
  ///
  /// No more apps can have ended than were launched, and every launch is a user's switch or a background launch:
  /// their expected counts over `duration`, with a margin for the draws, bound the ended apps of a long run with a
  /// small population as well as of a short run with a large one.
  public init(model: SimModel, apps: Int, duration: Duration) {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    let launches = seconds / model.switchSeconds + seconds / model.backgroundLaunchSeconds
    let ended = min(Double(apps), launches * 1.25 + 100)
    let snapshot = min(Double(apps), Self.residentApps(model))
    let perEnded = Double(Self.bytesPerEndedApp) + Double(Self.bytesPerSnapshotEntry) * snapshot
    let total = Double(Self.baseBytes) + Double(apps) * Double(Self.bytesPerApp) + ended * perEnded
    bytes = total >= Double(Int64.max) ? Int64.max : Int64(total.rounded(.up))
  }

  /// About how many apps the model's device holds at once: its memory for apps over the mean suspended app's
  /// (each kind's median, weighed by share, none under 1 MiB). Runs measured reach up to 1.7 times as many, which
  /// the margin of ``bytesPerSnapshotEntry`` covers.
  static func residentApps(_ model: SimModel) -> Double {
    let shares = model.kinds.reduce(0) { $0 + $1.share }
    let suspended = model.kinds.reduce(0) { $0 + $1.share * max($1.memoryMedianMiB * $1.suspendedFraction, 1) }
    guard shares > 0, suspended > 0 else { return 0 }
    return (model.ramMiB - model.systemMiB) / (suspended / shares)
  }

  /// Why a run of `apps` apps cannot start when only `available` bytes are to be had (`source` says where that
  /// figure comes from, e.g. `MemAvailable in /proc/meminfo`), or nil when the estimate fits.
  public func refusal(apps: Int, available: Int64, source: String) -> String? {
    guard bytes > available else { return nil }
    return "--apps \(apps) needs about \(Self.describe(bytes)) of memory; \(Self.describe(max(available, 0))) "
      + "is available (\(source))"
  }

  /// `bytes` for people, in decimal units: `512 MB`, `25.7 GB`.
  public static func describe(_ bytes: Int64) -> String {
    let value = Double(bytes)
    if value >= 1e9 { return ReportPage.fixed(value / 1e9, 1) + " GB" }
    return ReportPage.fixed(value / 1e6, 0) + " MB"
  }
}
