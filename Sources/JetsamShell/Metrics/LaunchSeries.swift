import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// The exposition's per-app launch figures (README, "Metrics"): launch, resume and hang time histograms, the CPU
/// time of the launches that ended, the peak memory, the average memory while suspended and the bytes written. Each
/// app's series add up its exit records counted since jetsamd started (``ExitCounters/launches``), those not durable
/// yet, and its running launch's figures so far, so that they only grow while the app comes and goes; app labels
/// are bounded as the exit counters' are.
enum LaunchSeries {
  /// The histograms' upper bounds, in seconds: the core's bucket edges (``DurationHistogram/edgesMilliseconds``)
  /// but the last, whose bucket also holds longer durations and so counts only in `+Inf`.
  static let bounds: [Int] = Array(DurationHistogram.edgesMilliseconds.dropFirst().dropLast())

  static func append(to out: inout PrometheusText, _ figures: some MetricsFigures) {
    var totals = figures.counters.launches
    var peaks: [String: Int64] = [:]
    let running = figures.policy.runningLaunchMetrics(at: MonotonicClock.now())
    for status in figures.policy.apps where status.state.isRunning {
      let app = figures.counters.currentLabel(for: status.name, configured: figures.isConfigured(status.name))
      if let metrics = running[status.name] { totals[app, default: MetricTotals()].add(metrics) }
      if let pid = status.pid, let peak = try? figures.cgroup(of: status.name, pid: pid)?.peakMemory() {
        peaks[app] = max(peaks[app] ?? 0, peak)
      }
    }
    // A launch that ended and whose record is still being made durable: neither running nor counted yet.
    for record in figures.unwrittenRecords {
      let app = figures.counters.currentLabel(for: record.app, configured: figures.isConfigured(record.app))
      totals[app, default: MetricTotals()].count(record)
    }
    for (app, total) in totals where total.records > 0 { peaks[app] = max(peaks[app] ?? 0, total.peakMemoryBytes) }
    let apps = totals.keys.sorted()
    let measured = apps.filter { totals[$0]!.measuredLaunches }
    out.histograms(
      "jetsam_app_launch_seconds",
      help: "From each launch's spawn to the acknowledgement of its first didBecomeActive (MetricKit's time to "
        + "first draw), by app: exits since jetsamd started and the running launch.",
      measured.map { series($0, totals[$0]!.timeToFirstDraw) })
    out.histograms(
      "jetsam_app_resume_seconds",
      help: "From willEnterForeground to the acknowledged didBecomeActive of each return from the background, by app.",
      measured.map { series($0, totals[$0]!.resumeTimes) })
    out.histograms(
      "jetsam_app_hang_seconds",
      help: "Lifecycle handlers of 250 ms or more and the watchdog's hangs, by app.",
      measured.map { series($0, totals[$0]!.hangTimes) })
    out.family(
      "jetsam_app_exited_cpu_seconds_total", .counter,
      help: "CPU time of each app's launches that ended since jetsamd started (the running launch's is "
        + "jetsam_app_cpu_seconds_total).",
      apps.filter { totals[$0]!.records > 0 }.map { .init([("app", $0)], totals[$0]!.cpuSeconds) })
    out.family(
      "jetsam_app_peak_memory_bytes", .gauge,
      help: "The most memory each app's cgroup was charged: its exits since jetsamd started and its running launch.",
      peaks.keys.sorted().map { .init([("app", $0)], Double(peaks[$0]!)) })
    out.family(
      "jetsam_app_suspended_memory_bytes", .gauge,
      help: "The time-weighted average of each app's memory while suspended (MetricKit's averageSuspendedMemory): "
        + "its exits since jetsamd started and its running launch.",
      apps.filter { !totals[$0]!.suspendedMemory.isEmpty }.map {
        .init([("app", $0)], totals[$0]!.suspendedMemory.averageBytes.rounded())
      })
    out.family(
      "jetsam_app_written_bytes_total", .counter,
      help: "Bytes each app wrote to storage, as the disk-write monitor counts them (MetricKit's "
        + "cumulativeLogicalWrites): its exits since jetsamd started and its running launch.",
      apps.compactMap { app in totals[app]!.bytesWritten.map { .init([("app", app)], Double($0)) } })
  }

  /// One app's series of `histogram`: cumulative counts at each bound, then `+Inf`.
  static func series(_ app: String, _ histogram: DurationHistogram) -> PrometheusText.HistogramSeries {
    var buckets: [(String, Int)] = []
    for bound in bounds {
      let count = histogram.buckets.filter { $0.endMilliseconds <= bound }.reduce(0) { $0 + $1.count }
      buckets.append((PrometheusText.format(Double(bound) / 1000), count))
    }
    buckets.append(("+Inf", histogram.total))
    return .init(labels: [("app", app)], buckets: buckets, sum: nil)
  }
}
