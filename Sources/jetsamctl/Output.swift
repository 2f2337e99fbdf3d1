import Foundation
import JetsamCore
import JetsamProtocol
import JetsamWire

/// Prints responses as tables for people or JSON for scripts.
struct Output {
  var json: Bool

  func show(_ response: ControlResponse, for request: ControlRequest) {
    switch request.verb {
    case .ps:
      json ? printJSON(response.apps ?? []) : table(response.apps ?? [])
    case .status:
      guard let status = response.status else { return }
      if json { return printJSON(status) }
      print("jetsamd \(status.version), up \(String(format: "%.0f", status.uptimeSeconds))s")
      print("cgroups: \(status.cgroupMode), suspend: \(status.suspendMode), device: \(status.deviceCgroup)")
      let counts = status.appsByState.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
      print("apps: \(counts.isEmpty ? "none" : counts.joined(separator: ", "))")
      print("exit records: \(status.recordsWritten) written this run, log \(status.recordLog)")
    case .pressure:
      guard let pressure = response.pressure else { return }
      if json { return printJSON(pressure) }
      let forced = pressure.forcedLevel.map { " (forced \($0.name))" } ?? ""
      print("level: \(pressure.level.name)\(forced)")
      print(
        "device: \(pressure.mode), RAM \(ByteSize.format(pressure.ramBytes)), available \(ByteSize.format(pressure.availableBytes))"
      )
      for (name, b) in [
        ("warning", pressure.thresholds.warning), ("urgent", pressure.thresholds.urgent),
        ("critical", pressure.thresholds.critical),
      ] {
        print(
          "  \(name.padding(toLength: 8, withPad: " ", startingAt: 0)) enter ≤ \(ByteSize.format(b.enter)), clear ≥ \(ByteSize.format(b.clear)) available"
        )
      }
      if pressure.balloonBytes > 0 { print("balloon: \(ByteSize.format(pressure.balloonBytes))") }
    case .metrics:
      // The exposition is text already, for promtool, a textfile or a pipe.
      if let exposition = response.exposition { return print(exposition, terminator: "") }
      let payloads = response.metrics ?? []
      if json { return printJSON(payloads) }
      showMetrics(payloads)
    case .diagnostics:
      let records = response.diagnostics ?? []
      if json { return printJSON(DiagnosticPayload.payloads(records)) }
      showDiagnostics(records)
    case .watch:
      guard let snapshot = response.watch else { return }
      if json { return printCompact(snapshot) }
      table(snapshot.apps)
      print(
        "pressure \(snapshot.pressure.level.name), \(ByteSize.format(snapshot.pressure.availableBytes)) of "
          + "\(ByteSize.format(snapshot.pressure.ramBytes)) available")
    case .device:
      guard let device = response.device else { return }
      if json { return printJSON(device) }
      print("charging: \(device.charging ? "on (idle and charging)" : "off")")
    case .exits:
      // Newest first, as jetsamd answers; a follower reads them oldest first, so that new records go on below.
      let records = response.exits ?? []
      showExits(request.follow == true ? records.reversed() : records, header: true, verdicts: request.verdicts == true)
      if response.more == true {
        FileHandle.standardError.write(Data("jetsamctl: older records left out (use --limit or --since)\n".utf8))
      }
    default:
      if let apps = response.apps {
        if json { return printJSON(apps) }
        for app in apps {
          print("\(app.status.name): \(app.status.state.rawValue)\(app.status.pid.map { " (pid \($0))" } ?? "")")
        }
        return
      }
      guard let app = response.app else { return }
      if json { return printJSON(app) }
      if request.verb == .launch {
        print(app.status.pid.map(String.init) ?? "-")
      } else {
        print("\(app.status.name): \(app.status.state.rawValue)\(app.status.pid.map { " (pid \($0))" } ?? "")")
      }
    }
  }

  func showExits(_ records: [ExitRecord], header: Bool, verdicts: Bool = false) {
    if verdicts && !json {
      let rows = records.filter(\.savedState.hasVerdict).map { r in
        [
          r.time, r.app, String(r.launch), r.savedState.restoration?.rawValue ?? "-",
          r.savedState.restoredDigest ?? "-", Self.resumptionText(r), r.savedState.digest ?? "-",
          r.cause.reason.rawValue,
        ]
      }
      return printTable(
        header ? ["ENDED", "APP", "LAUNCH", "RESTORATION", "RESTORED", "RESUMPTION", "LEFT", "ENDED_AS"] : nil, rows)
    }
    if json {
      if header { printJSON(records) } else { for record in records { printLine(record) } }
      return
    }
    let rows = records.map { r in
      [
        r.time, r.app, String(r.pid), String(r.launch), r.cause.reason.rawValue, r.cause.terminationReason,
        r.lifecycle.state.rawValue, String(format: "%.1f", r.lifecycle.stateSeconds),
        ByteSize.format(r.usage.memoryBytes), Self.detail(r),
      ]
    }
    printTable(
      header
        ? ["TIME", "APP", "PID", "LAUNCH", "REASON", "TERMINATION", "STATE", "STATE_S", "MEMORY", "DETAIL"] : nil,
      rows)
    // The commands each launch ran, a short line each, below the table (their output in full is in --json).
    for record in records {
      for run in record.commands ?? [] { print(Self.commandLine(run, of: record)) }
    }
  }

  /// One command run of a launch: `redis launch 2: ready (redis-cli ping) exited 0 after 3 attempts, 0.01s: PONG`.
  static func commandLine(_ run: CommandRunRecord, of record: ExitRecord) -> String {
    var line = "\(record.app) launch \(record.launch): \(run.run) (\(run.command.joined(separator: " "))) \(run.ending)"
    if let attempts = run.attempts { line += " after \(attempts) attempt\(attempts == 1 ? "" : "s")" }
    line += String(format: ", %.2fs", run.seconds)
    // The last line it printed says most (an error, a digest); the rest is in the JSON.
    if let last = run.output?.split(whereSeparator: \.isNewline).last {
      line += ": " + String(last.prefix(80))
    }
    return line
  }

  /// What the reason alone does not say: the handler a watchdog kill hung in and for how long, the background
  /// tasks still open, or the CPU figures in iOS's words.
  static func detail(_ record: ExitRecord) -> String {
    let evidence = record.evidence
    if let usage = evidence.cpuUsage { return "CPU: " + usage.summary }
    if let event = evidence.watchdogEvent {
      return "in \(event)" + (evidence.watchdogSeconds.map { String(format: " %.1fs", $0) } ?? "")
    }
    if let tasks = evidence.openBackgroundTasks, !tasks.isEmpty { return "open tasks: " + tasks.joined(separator: ",") }
    return "-"
  }

  /// A resumption verdict with what decided it: `stale (12.0s old, valid 10.0s)`.
  static func resumptionText(_ record: ExitRecord) -> String {
    let state = record.savedState
    guard let verdict = state.resumption else { return "-" }
    guard let age = state.resumedStateAgeSeconds, let validFor = state.resumedStateValidForSeconds else {
      return verdict.rawValue
    }
    return verdict.rawValue + String(format: " (%.1fs old, valid %.1fs)", age, validFor)
  }

  private func printLine(_ record: ExitRecord) { printCompact(record) }

  /// One JSON line.
  private func printCompact<T: Encodable>(_ value: T) {
    let compact = JSONEncoder()
    compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: (try? compact.encode(value)) ?? Data(), as: UTF8.self))
  }

  /// One change of `watch`: a JSON line, or a line for people (`+12.345s state mail background → suspended`).
  func show(_ change: LiveChange) {
    if json { return printCompact(change) }
    print(Self.describe(change))
  }

  /// A change in words, without its time.
  static func describe(_ change: LiveChange) -> String {
    let who = [change.app, change.pid.map { "pid \($0)" }, change.launch.map { "#\($0)" }].compactMap { $0 }
      .joined(separator: " ")
    switch change.kind {
    case .state:
      return
        "state \(who): \(change.from?.rawValue ?? "?") → \(change.to?.rawValue ?? "?") (\(change.band?.description ?? "?"))"
    case .pressure:
      return "pressure \(change.previousLevel?.name ?? "?") → \(change.level?.name ?? "?"), "
        + "\(ByteSize.format(change.availableBytes ?? 0)) available"
    case .memory:
      let apps = (change.memory ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \(ByteSize.format($0.value))" }
      return "memory: \(ByteSize.format(change.availableBytes ?? 0)) available; " + apps.joined(separator: ", ")
    case .kill: return "kill \(who): \(change.reason?.rawValue ?? "?")"
    case .appEvent: return "event \(who): \(change.name ?? "?")" + (change.level.map { " (\($0.name))" } ?? "")
    case .signpost: return "signpost \(who): \(change.name ?? "?") \(change.phase?.rawValue ?? "?")"
    case .acknowledgement: return "acknowledged \(who): \(change.name ?? "?")"
    case .diagnostic: return "diagnostic \(who): \(change.name ?? "?")"
    case .verdict: return "verdict \(who): \(change.name ?? "?") \(change.verdict ?? "?")"
    case .exit:
      guard let record = change.record else { return "exit \(who)" }
      return
        "exit \(who): \(record.cause.reason.rawValue) (\(record.cause.terminationReason)) in \(record.lifecycle.state)"
    case .device: return "device: charging \(change.charging == true ? "on" : "off")"
    case .watchdogHeld: return "\(who): " + WatchdogHeldText.text(event: change.name ?? "?", tracer: change.tracerPid)
    case .sockets:
      let sockets = (change.sockets ?? []).map(\.summary)
      return "sockets defuncted \(who): " + (sockets.isEmpty ? "none" : sockets.joined(separator: ", "))
        + (change.problem.map { "; not all could be: \($0)" } ?? "")
    }
  }

  private func table(_ apps: [AppInfo]) {
    let rows = apps.map { app in
      let (status, measured) = (app.status, app.measured)
      return [
        status.name, status.pid.map(String.init) ?? "-", Self.stateText(app), status.band.description,
        ByteSize.format(measured.memoryBytes), measured.memoryLimitBytes.map { ByteSize.format($0) } ?? "-",
        String(format: "%.1f", measured.stateSeconds), String(status.launch), status.restoration?.rawValue ?? "-",
        status.resumption?.verdict.rawValue ?? "-",
      ]
    }
    printTable(
      ["NAME", "PID", "STATE", "BAND", "MEMORY", "LIMIT", "STATE_S", "LAUNCH", "RESTORATION", "RESUMPTION"], rows)
  }

  /// `suspended`, or how far its suspension got: `suspended (stopping)` while its processes are told to stop,
  /// `suspended (incomplete)` when they did not all stop within the suspend timeout.
  static func stateText(_ app: AppInfo) -> String {
    let state = app.status.state.coarseName
    if app.status.suspendIncomplete { return state + " (incomplete)" }
    if app.measured.stopping { return state + " (stopping)" }
    return state
  }

  private func printTable(_ header: [String]?, _ rows: [[String]]) {
    let all = (header.map { [$0] } ?? []) + rows
    guard let columns = all.first?.count else { return }
    let widths = (0..<columns).map { c in all.map { $0[c].count }.max() ?? 0 }
    for row in all {
      print(
        row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
          .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
    }
  }

  /// Each app's payload as a block: its exits by side and reason, then each metric family it has, one line each
  /// (`--json` has them whole, with MetricKit's keys).
  func showMetrics(_ payloads: [MetricPayload]) {
    guard !payloads.isEmpty else { return print("no exits recorded, no launch measured") }
    for (index, payload) in payloads.enumerated() {
      if index > 0 { print("") }
      print("\(payload.metaData.bundleIdentifier)  \(payload.timeStampBegin) – \(payload.timeStampEnd)")
      for (label, value) in Self.metricLines(payload) {
        print("  " + label.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
      }
    }
  }

  /// The lines of one app's block: what it measured, in the payload's own units.
  static func metricLines(_ payload: MetricPayload) -> [(String, String)] {
    var lines: [(String, String)] = []
    let exits = payload.applicationExitMetrics
    for (side, counts) in [("foreground", exits.foregroundExitData), ("background", exits.backgroundExitData)] {
      let seen = ExitReason.allCases.compactMap { reason in
        counts.counts[reason].flatMap { $0 > 0 ? "\(reason.rawValue) \($0)" : nil }
      }
      lines.append(("exits", "\(side): " + (seen.isEmpty ? "none" : seen.joined(separator: ", "))))
    }
    if let launch = payload.applicationLaunchMetrics {
      lines.append(("launches", histogramText(launch.histogrammedTimeToFirstDrawKey, "to first draw")))
      lines.append(("resumes", histogramText(launch.histogrammedResumeTime, "to the acknowledged didBecomeActive")))
    }
    if let hangs = payload.applicationResponsivenessMetrics?.histogrammedAppHangTime {
      lines.append(("hangs", histogramText(hangs, "of 250 ms or more")))
    }
    if let time = payload.applicationTimeMetrics {
      lines.append(
        (
          "time",
          "foreground \(time.cumulativeForegroundTime), background \(time.cumulativeBackgroundTime) (audio "
            + "\(time.cumulativeBackgroundAudioTime))"
        ))
    }
    if let cpu = payload.cpuMetrics { lines.append(("cpu", cpu.cumulativeCPUTime)) }
    if let memory = payload.memoryMetrics {
      let suspended = memory.averageSuspendedMemory.map {
        ", suspended \($0.averageValue) on average (\($0.sampleCount) readings)"
      }
      lines.append(("memory", "peak \(memory.peakMemoryUsage)" + (suspended ?? "")))
    }
    if let disk = payload.diskIOMetrics { lines.append(("writes", disk.cumulativeLogicalWrites)) }
    for signpost in payload.signpostMetrics ?? [] {
      let data = signpost.signpostIntervalData
      let costs = [
        data.signpostCumulativeCPUTime.map { "CPU \($0)" }, data.signpostAverageMemory.map { "memory \($0)" },
        data.signpostCumulativeLogicalWrites.map { "writes \($0)" },
      ].compactMap { $0 }
      lines.append(
        (
          "signpost",
          "\(signpost.signpostName) ×\(signpost.totalSignpostCount), "
            + histogramText(data.histogrammedSignpostDurations, "long")
            + (costs.isEmpty ? "" : "; " + costs.joined(separator: ", "))
        ))
    }
    return lines
  }

  /// `3 to first draw, 100 ms – 500 ms`: how many, and from the lowest bucket's start to the highest's end.
  static func histogramText(_ histogram: MetricKitHistogram, _ what: String) -> String {
    let buckets = histogram.histogramValue.values.filter { $0.bucketCount > 0 }
    let low = buckets.min { value($0.bucketStart) < value($1.bucketStart) }
    let high = buckets.max { value($0.bucketEnd) < value($1.bucketEnd) }
    guard let low, let high else { return "none" }
    return "\(histogram.total) \(what), \(low.bucketStart) – \(high.bucketEnd)"
  }

  private static func value(_ measurement: String) -> Double { MetricKitMeasurement.value(of: measurement) ?? 0 }

  /// Each diagnostic: when, whose, what, and where its attributed thread was (innermost frame first).
  func showDiagnostics(_ records: [DiagnosticRecord]) {
    guard !records.isEmpty else { return print("no diagnostics") }
    for record in records {
      let meta = record.diagnostic.diagnosticMetaData
      var figures: [String] = []
      if let event = meta.jetsamLifecycleEvent { figures.append("in \(event)") }
      if let duration = meta.hangDuration { figures.append("hung \(duration)") }
      if let cpu = meta.totalCPUTime, let sampled = meta.totalSampledTime { figures.append("\(cpu) CPU in \(sampled)") }
      if let signal = meta.signal { figures.append("signal \(signal)") }
      if let reason = meta.terminationReason { figures.append(reason) }
      print(
        "\(record.time)  \(record.app) pid \(record.pid) #\(record.launch)  \(record.kind.rawValue)  \(figures.joined(separator: ", "))"
      )
      print("  id \(record.id)")
      if let problem = meta.jetsamCaptureError { print("  no complete stacks: \(problem)") }
      guard let tree = record.diagnostic.callStackTree else { continue }
      let path = record.kind == .crash ? tree.attributedPath : tree.attributedPath.reversed()
      for frame in path.prefix(32) {
        let symbol =
          frame.symbol.map { "\($0) + \(frame.symbolOffset ?? 0)" } ?? "0x" + String(frame.address, radix: 16)
        let samples = tree.callStackPerThread && record.kind == .crash ? "" : "  [\(frame.sampleCount)]"
        print("    \(symbol)  (\(frame.binaryName ?? "?"))\(samples)")
      }
    }
  }
}
