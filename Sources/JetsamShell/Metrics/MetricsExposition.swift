import JetsamCore
import JetsamProtocol

/// jetsamd's state and counters in Prometheus' text format (README, "Metrics"): built on the loop from the figures
/// the daemon holds (the policy's apps, the last memory sample, the counters of durable records) and one read of each
/// running app's memory and CPU counters.
enum MetricsExposition {
  static func text(_ figures: some MetricsFigures) -> String {
    var out = PrometheusText()
    let policy = figures.policy
    out.family(
      "jetsam_info", .gauge, help: "jetsamd's version and modes (always 1).",
      [
        .init(
          [
            ("version", Daemon.version), ("cgroup_mode", figures.cgroupMode),
            ("suspend_mode", figures.suspendMode.rawValue),
          ], 1)
      ])
    out.family(
      "jetsam_device_ram_bytes", .gauge, help: "The emulated device's RAM (the host's in host mode).",
      [.init(Double(figures.ramBytes))])
    out.family(
      "jetsam_device_available_bytes", .gauge, help: "The device's available memory at the last sample.",
      [.init(Double(figures.availableBytes))])
    out.family(
      "jetsam_pressure_level", .gauge, help: "The pressure level: 0 normal, 1 warning, 2 urgent, 3 critical.",
      [.init(Double(PressureLevel.allCases.firstIndex(of: policy.level) ?? 0))])

    var byState: [String: Int] = [:]
    var byBand: [String: Int] = [:]
    for status in policy.apps where status.state.isRunning {
      byState[status.state.coarseName, default: 0] += 1
      byBand[status.band.description, default: 0] += 1
    }
    out.family(
      "jetsam_apps", .gauge, help: "Running apps by state.",
      ["foreground", "background", "suspended"].map { .init([("state", $0)], Double(byState[$0] ?? 0)) })
    out.family(
      "jetsam_apps_by_band", .gauge, help: "Running apps by band.",
      byBand.keys.sorted().map { .init([("band", $0)], Double(byBand[$0]!)) })

    var memory: [PrometheusText.Sample] = []
    var cpu: [PrometheusText.Sample] = []
    for status in policy.apps where status.state.isRunning {
      guard let pid = status.pid, let cgroup = figures.cgroup(of: status.name, pid: pid) else { continue }
      let app = figures.counters.currentLabel(for: status.name, configured: figures.isConfigured(status.name))
      if let bytes = try? cgroup.memoryUsage() { memory.append(.init([("app", app)], Double(bytes))) }
      if let seconds = try? cgroup.cpuSeconds() { cpu.append(.init([("app", app)], seconds)) }
    }
    out.family("jetsam_app_memory_bytes", .gauge, help: "Memory charged to each running app's cgroup.", memory)
    out.family(
      "jetsam_app_cpu_seconds_total", .counter, help: "CPU time of each running app's cgroup, this launch.", cpu)

    LaunchSeries.append(to: &out, figures)

    let counters = figures.counters
    out.family(
      "jetsam_exits_total", .counter, help: "Exit records written, by app, MetricKit reason and state at death.",
      counters.exits.keys.sorted {
        ($0.app, $0.reason.rawValue, $0.state.rawValue) < ($1.app, $1.reason.rawValue, $1.state.rawValue)
      }
      .map {
        .init(
          [("app", $0.app), ("reason", $0.reason.rawValue), ("state", $0.state.rawValue)], Double(counters.exits[$0]!))
      })
    out.family(
      "jetsam_kills_total", .counter, help: "Apps jetsam itself killed (memory pressure, CPU limit, …), by reason.",
      counters.jetsamKills.keys.sorted { $0.rawValue < $1.rawValue }
        .map { .init([("reason", $0.rawValue)], Double(counters.jetsamKills[$0]!)) })
    out.family(
      "jetsam_watchdog_kills_total", .counter,
      help: "Apps killed by the lifecycle watchdog, by the event they hung in.",
      counters.watchdogKills.keys.sorted().map { .init([("event", $0)], Double(counters.watchdogKills[$0]!)) })
    out.family(
      "jetsam_restoration_verdicts_total", .counter, help: "Restoration verdicts of relaunches, by app and verdict.",
      counters.verdicts.keys.sorted { ($0.app, $0.verdict) < ($1.app, $1.verdict) }
        .map { .init([("app", $0.app), ("verdict", $0.verdict)], Double(counters.verdicts[$0]!)) })
    out.family(
      "jetsam_exit_records_written_total", .counter, help: "Exit records made durable since jetsamd started.",
      [.init(Double(figures.recordsWritten))])
    out.family(
      "jetsam_crash_reports_refused_total", .counter,
      help: "Crash report lines refused because the kernel did not bear them out (a sender other than the process "
        + "named, a process outside the app's cgroup, a thread not its own).",
      [.init(Double(figures.refusedCrashReports))])
    out.histogram(
      "jetsam_kill_latency_seconds",
      help: "From the observation that made jetsam kill (a memory sample past a threshold, a forced level, or the "
        + "previous victim's exit while the level still calls for a kill) to the SIGKILL.",
      figures.killTimings.killLatency)
    out.histogram(
      "jetsam_memory_back_seconds",
      help: "From a jetsam kill's SIGKILL to the killed process's exit (its memory back).",
      figures.killTimings.memoryBack)
    return out.text
  }
}
