import Foundation

/// Everything measured in one run of the bench, and how it is turned into the report.
struct BenchResults {
  var options: BenchOptions
  var model: AllocatorModel?
  /// Per rate: jetsamd's series and earlyoom's (nil when earlyoom was not run).
  var kills: [(jetsamd: VictimSeries, earlyoom: VictimSeries?)] = []
  var suspendResume: [SuspendResumeResult] = []
  var daemonIdle: IdleCost?
  var earlyoomIdle: IdleCost?
  var load: LoadResult?
  var history: HistoryResult?
  var diagnostics: DiagnosticsResult?
  var sim: SimResult?
  /// Problems that kept a phase from running at all.
  var problems: [String] = []

  func table() -> ReportTable {
    var table = ReportTable()
    for (jetsamd, earlyoom) in kills {
      let rate = jetsamd.rate
      table.section(
        "Kill at \(rate) MiB/s (victim \(options.victimMB) MiB; jetsamd \(jetsamd.runs.count) runs, earlyoom \(earlyoom?.runs.count ?? 0))"
      )
      let j = jetsamd.toKill
      let e = earlyoom?.toKill
      table.add("  crossing → SIGKILL, median", jetsamd: j.median, earlyoom: e?.median, unit: .milliseconds)
      table.add("  crossing → SIGKILL, p90", jetsamd: j.p90, earlyoom: e?.p90, unit: .milliseconds)
      table.add("  crossing → SIGKILL, p99", jetsamd: j.p99, earlyoom: e?.p99, unit: .milliseconds, target: .below(10))
      let js = jetsamd.sampledToKill
      let es = earlyoom?.sampledToKill
      table.add("  sampled crossing → SIGKILL, median", jetsamd: js.median, earlyoom: es?.median, unit: .milliseconds)
      table.add(
        "  sampled crossing → SIGKILL, p99", jetsamd: js.p99, earlyoom: es?.p99, unit: .milliseconds, target: .below(10)
      )
      let jb = jetsamd.toMemoryBack
      let eb = earlyoom?.toMemoryBack
      table.add(
        "  crossing → memory back, median", jetsamd: jb.median, earlyoom: eb?.median, unit: .milliseconds,
        target: .clearlyBelowEarlyoom)
      table.add("  crossing → memory back, p90", jetsamd: jb.p90, earlyoom: eb?.p90, unit: .milliseconds)
      table.add(
        "  crossing → memory back, p99", jetsamd: jb.p99, earlyoom: eb?.p99, unit: .milliseconds,
        target: .clearlyBelowEarlyoom)
      table.add(
        "  SIGKILL → memory back, median", jetsamd: jetsamd.killToMemoryBack.median,
        earlyoom: earlyoom?.killToMemoryBack.median, unit: .milliseconds)
      table.add(
        "  crossing → victim exited (pidfd), median", jetsamd: jetsamd.toExit.median, earlyoom: earlyoom?.toExit.median,
        unit: .milliseconds)
    }
    for result in suspendResume {
      let count = result.apps == options.apps ? "\(result.apps)" : "\(result.apps) (of \(options.apps) asked for)"
      table.section(
        "Suspend / resume \(count) idle apps (suspend mode \(result.mode), "
          + "daemonRealtimePriority \(options.fleetRealtimePriority.map(String.init) ?? "off"))")
      let batchTarget = options.batchTargetMilliseconds
      let rounds = SuspendResumeBench.batchRounds
      table.add(
        "  suspend all, one batch request (median of \(rounds))", jetsamd: result.suspendBatch.median,
        unit: .milliseconds, target: .below(batchTarget))
      table.add("    slowest of the \(rounds)", jetsamd: result.suspendBatch.sorted.last, unit: .milliseconds)
      table.add("    daemon CPU for the batch (median)", jetsamd: result.suspendBatchCPU.median, unit: .milliseconds)
      if let cpu = result.suspendBatchCPU.median, result.apps > 0 {
        // What one state change costs jetsamd, its metrics (time in state, suspended memory, writes) included.
        table.addText(
          "    daemon CPU per app suspended", jetsamd: String(format: "%.0f µs", cpu * 1000 / Double(result.apps)))
      }
      table.add(
        "  resume all, one batch request (median of \(rounds))", jetsamd: result.resumeBatch.median,
        unit: .milliseconds, target: .below(batchTarget))
      table.add("    slowest of the \(rounds)", jetsamd: result.resumeBatch.sorted.last, unit: .milliseconds)
      table.add("    daemon CPU for the batch (median)", jetsamd: result.resumeBatchCPU.median, unit: .milliseconds)
      table.addText(
        "  kernel shows stopped / running again (batch)",
        jetsamd: "\(result.verifiedBatchSuspended) / \(result.verifiedBatchResumed)",
        target: "\(result.apps) / \(result.apps)",
        met: result.verifiedBatchSuspended == result.apps && result.verifiedBatchResumed == result.apps ? "yes" : "NO")
      table.add("  suspend all, one request after another", jetsamd: result.suspendTotal, unit: .milliseconds)
      table.add("    per app: median", jetsamd: result.suspendEach.median, unit: .milliseconds)
      table.add("    per app: p99", jetsamd: result.suspendEach.p99, unit: .milliseconds)
      table.add("  resume all, one request after another", jetsamd: result.resumeTotal, unit: .milliseconds)
      table.add("    per app: median", jetsamd: result.resumeEach.median, unit: .milliseconds)
      table.add("    per app: p99", jetsamd: result.resumeEach.p99, unit: .milliseconds)
      table.add("  suspend all, pipelined (daemon-side time)", jetsamd: result.suspendPipelined, unit: .milliseconds)
      table.add("    daemon CPU for the batch", jetsamd: result.suspendDaemonCPU, unit: .milliseconds)
      table.add("  resume all, pipelined (daemon-side time)", jetsamd: result.resumePipelined, unit: .milliseconds)
      table.add("    daemon CPU for the batch", jetsamd: result.resumeDaemonCPU, unit: .milliseconds)
      table.addText(
        "  kernel shows stopped / running again", jetsamd: "\(result.verifiedSuspended) / \(result.verifiedResumed)",
        target: "\(result.apps) / \(result.apps)",
        met: result.verifiedSuspended == result.apps && result.verifiedResumed == result.apps ? "yes" : "NO")
      table.add("  jetsamctl suspend NAME (CLI, median)", jetsamd: result.cliSuspend.median, unit: .milliseconds)
      table.add("  jetsamctl resume NAME (CLI, median)", jetsamd: result.cliResume.median, unit: .milliseconds)
      table.add("  launch all, one request after another", jetsamd: result.launchTotal, unit: .milliseconds)
    }
    if let load {
      table.section(
        "Under load: 1 firehose + \(load.slowHeld) slow connections held of \(load.slowTried) tried (the cap is 256 "
          + "in all); kills at \(load.rate) MiB/s")
      let idleP99 = load.idleStatus.p99 ?? 0
      table.add("  another client's status round trip p99, idle", jetsamd: load.idleStatus.p99, unit: .milliseconds)
      table.add(
        "  … under load (target: 3× idle + 2 ms)", jetsamd: load.loadedStatus.p99, unit: .milliseconds,
        target: .below(idleP99 * 3 + 2))
      table.add(
        "  … while an app's --ready is yes (\(load.readyFloodStatus.count) timed), p99",
        jetsamd: load.readyFloodStatus.p99, unit: .milliseconds, target: .atMost(5))
      table.add("  … max", jetsamd: load.readyFloodStatus.max, unit: .milliseconds)
      table.add("  crossing → SIGKILL median, idle", jetsamd: load.idleKills.toKill.median, unit: .milliseconds)
      table.add(
        "  … under load", jetsamd: load.loadedKills.toKill.median, unit: .milliseconds,
        target: .below((load.idleKills.toKill.median ?? 0) * 3 + 1))
      table.add("  crossing → SIGKILL p99, under load", jetsamd: load.loadedKills.toKill.p99, unit: .milliseconds)
      table.add(
        "  app death → its record in the log, p99, idle", jetsamd: load.idleRecordDelay.p99, unit: .milliseconds)
      table.add(
        "  … under load", jetsamd: load.loadedRecordDelay.p99, unit: .milliseconds,
        target: .below((load.idleRecordDelay.p99 ?? 0) * 3 + 5))
      table.add("  firehose requests per second", jetsamd: load.firehosePerSecond, unit: .count)
      table.add("  jetsamd RSS idle / under load", jetsamd: load.loadedRSS, unit: .megabytes, target: .below(60))
    }
    if let history {
      table.section(
        String(
          format: "A long life: %d exit records (%.0f MB log) at start-up", history.records,
          Double(history.logBytes) / 1_048_576))
      table.add(
        "  start-up until the first answer", jetsamd: history.startUp, unit: .milliseconds, target: .below(2000))
      table.add("  exits (1,000 newest), median", jetsamd: history.defaultPage.median, unit: .milliseconds)
      table.add(
        "  exits --limit 100000 (\(history.largestPageRecords) records\(history.largestPageMore ? ", more" : "")), median",
        jetsamd: history.largestPage.median, unit: .milliseconds)
      table.add(
        "  another client's status during those, p99", jetsamd: history.statusDuringRead.p99, unit: .milliseconds,
        target: .below(5))
      table.add("  … max", jetsamd: history.statusDuringRead.max, unit: .milliseconds)
      table.add("  jetsamd RSS after", jetsamd: history.rss, unit: .megabytes, target: .below(60))
    }
    if let diagnostics {
      table.section("Diagnostics")
      table.add(
        "  call stacks of a \(diagnostics.threads)-thread app (\(diagnostics.framesPerCapture) frames), median",
        jetsamd: diagnostics.capture.median, unit: .milliseconds)
      table.add("  … p90", jetsamd: diagnostics.capture.p90, unit: .milliseconds, target: .below(50))
      table.add(
        "  another client's status round trip p99, quiet", jetsamd: diagnostics.quietStatus.p99, unit: .milliseconds)
      table.add(
        "  … during \(diagnostics.floodLines) forged crash report lines (\(diagnostics.floodStatus.count) timed), median",
        jetsamd: diagnostics.floodStatus.median, unit: .milliseconds)
      table.add("  … p99", jetsamd: diagnostics.floodStatus.p99, unit: .milliseconds, target: .atMost(10))
      table.add(
        "  CPU monitor, \(diagnostics.watchedApps) watched apps, 60 s window (40 reads/s): jetsamd CPU",
        jetsamd: diagnostics.monitorDefault, unit: .percent)
      table.add("  … 12 s window (200 reads/s)", jetsamd: diagnostics.monitorFast, unit: .percent)
      table.add("  … the same apps unwatched", jetsamd: diagnostics.monitorOff, unit: .percent)
      table.add(
        "  … the monitor's cost at iOS's 60 s window",
        jetsamd: max(0, diagnostics.monitorDefault - diagnostics.monitorOff),
        unit: .percent, target: .below(0.2))
    }
    if let sim {
      table.section(
        "Simulator: jetsam-sim, built-in model, \(SimBench.duration) simulated, seed 1 (wall time of the whole program)"
      )
      let tiny = sim.fastestTiny
      table.add(
        "  \(SimBench.tinyApps) apps (fastest of \(sim.tiny.count) runs)", jetsamd: tiny?.seconds, unit: .seconds)
      table.add(
        "  … the core's events per second (\(tiny?.policyEvents ?? 0) policy events ÷ wall s)",
        jetsamd: tiny?.eventsPerSecond, unit: .count)
      table.add(
        "  \(SimBench.smallApps) apps (faster of \(sim.small.count) runs)", jetsamd: sim.small.map(\.seconds).min(),
        unit: .seconds)
      table.add(
        "  \(SimBench.largeApps) apps (\(sim.largeKills) kills)", jetsamd: sim.large.seconds, unit: .seconds,
        target: .below(SimBench.largeTargetSeconds))
      table.add(
        "  … the core's events per second (\(sim.large.policyEvents) policy events ÷ wall s)",
        jetsamd: sim.large.eventsPerSecond, unit: .count)
      table.addText(
        "  \(SimBench.largeApps) apps ÷ \(SimBench.smallApps) apps",
        jetsamd: sim.ratio.map { String(format: "%.1f×", $0) } ?? "-",
        target: String(format: "≤ %.0f×", SimBench.ratioTarget),
        met: sim.ratio.map { $0 <= SimBench.ratioTarget ? "yes" : "NO" } ?? "")
      table.addText(
        "  the same seed twice: the same figures", jetsamd: sim.sameFigures ? "same" : "different", target: "same",
        met: sim.sameFigures ? "yes" : "NO")
    }
    if let daemonIdle {
      let apps = suspendResume.first?.apps ?? options.apps
      table.section(
        String(
          format: "Idle cost: jetsamd with %d suspended apps, earlyoom watching (%.0f s)", apps, daemonIdle.seconds))
      table.add(
        "  RSS (VmRSS)", jetsamd: mb(daemonIdle.residentBytes), earlyoom: earlyoomIdle.map { mb($0.residentBytes) },
        unit: .megabytes, target: .below(30))
      table.add(
        "  RSS, peak during the window", jetsamd: mb(daemonIdle.peakResidentBytes),
        earlyoom: earlyoomIdle.map { mb($0.peakResidentBytes) }, unit: .megabytes)
      if let fleet = suspendResume.first, fleet.apps > 0, fleet.anonymousBytesBeforeLaunch > 0 {
        // Its own memory (heap) now, less before the launches, per app: each app's record, launch metrics and kept
        // files.
        let perApp = Double(daemonIdle.anonymousBytes - fleet.anonymousBytesBeforeLaunch) / Double(fleet.apps)
        table.addText("  jetsamd's own memory per app", jetsamd: String(format: "%.1f KB", perApp / 1024))
      }
      table.add(
        "  CPU, % of a core (utime+stime)", jetsamd: daemonIdle.cpuPercentTicks,
        earlyoom: earlyoomIdle?.cpuPercentTicks, unit: .percent, target: .below(0.5))
      table.add(
        "  CPU, % of a core (CPU-time clock)", jetsamd: daemonIdle.cpuPercentScheduled,
        earlyoom: earlyoomIdle?.cpuPercentScheduled, unit: .percent, target: .below(0.5))
    }
    return table
  }

  /// The lines under the table: how good the crossing marks were, the allocators' real rates, failed runs.
  func notes() -> [String] {
    var notes: [String] = []
    if let model { notes.append("allocator charge (measured on the device counter): \(model)") }
    for (jetsamd, earlyoom) in kills {
      for series in [jetsamd] + (earlyoom.map { [$0] } ?? []) {
        let error = series.markError
        let rate = series.achievedRate
        var line = "\(series.tool) @ \(series.rate) MiB/s:"
        if let median = error.median, let low = error.min, let high = error.max {
          let what =
            series.runs.first?.crossingSource == .sampledCounter
            ? "allocator mark − sampled crossing (host drift)" : "mark − sampled crossing"
          line += String(format: " %@ median %+.2f ms (%+.2f … %+.2f);", what, median, low, high)
        }
        if let achieved = rate.median { line += String(format: " allocator ran at %.0f MiB/s;", achieved) }
        line += " \(series.runs.count) runs measured"
        if !series.rejected.isEmpty {
          let errors = Distribution(series.rejected.compactMap(\.markError))
          line += String(
            format: ", %d left out (mark and sampled crossing more than %.2f ms apart: %+.1f … %+.1f ms)",
            series.rejected.count,
            VictimRun.markTolerance(rate: series.rate), errors.min ?? 0, errors.max ?? 0)
        }
        if !series.failures.isEmpty {
          let counts = Dictionary(grouping: series.failures, by: { $0 }).map { "\($0.value.count)× \($0.key)" }
          line += ", \(series.failures.count) failed (\(counts.sorted().joined(separator: "; ")))"
        }
        notes.append(line)
      }
    }
    if let load {
      for (label, series) in [("idle", load.idleKills), ("under load", load.loadedKills)] where !series.failures.isEmpty
      {
        notes.append(
          "load phase, kills \(label): \(series.failures.count) failed (\(series.failures.joined(separator: "; ")))")
      }
      notes.append(String(format: "load phase: jetsamd RSS %.1f MB before the load", load.idleRSS))
    }
    notes += suspendResume.compactMap(\.launchFailure)
    notes += problems
    return notes
  }

  private func mb(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 }
}
