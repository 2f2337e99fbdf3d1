import FoundationEssentials
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Answers `exits`, `metrics` and `diagnostics`: read from the record log and the diagnostics kept off the loop
/// (``BackgroundRunning``), with what only the loop knows (the running launches, the records on their way) taken
/// first. It decides nothing.
final class RecordRequests {
  /// All it sees of the daemon.
  private let daemon: any RecordControlView
  /// Blocking work (reading the whole record log, the diagnostics kept) runs here, off the loop.
  private let background: any BackgroundRunning

  init(daemon: any RecordControlView, background: any BackgroundRunning) {
    self.daemon = daemon
    self.background = background
  }

  /// The newest records, read from the end of the log on a background thread (the loop never reads the log) and
  /// answered from the loop. Only the bytes the log had when asked are read; a follower gets every later record as
  /// it is written, after the reply.
  func exits(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let since = try request.sinceDate()
    let limit = try request.exitsLimit()
    var query = ExitRecordPage.Query(
      files: try daemon.recordLog.openForReading(), currentSize: daemon.recordLog.size(), app: request.app,
      since: since, limit: limit)
    query.judgedOnly = request.verdicts == true
    let path = daemon.recordLog.path
    if request.follow == true {
      connection.follow = FollowFilter(app: request.app, judgedOnly: request.verdicts == true)
    }
    // Read and encoded off the loop: a 4 MiB answer takes ~100 ms to encode, which would delay every kill.
    let read = { @Sendable [query] () -> Result<[UInt8], SystemError> in
      Result { () throws(SystemError) in
        let page = try ExitRecordPage.read(query)
        var response = ControlResponse(ok: true)
        response.exits = page.records
        if page.more { response.more = true }
        return response.line(encoder: .stable)
      }
    }
    answerInBackground(read, connection: connection, path: path)
    return nil
  }

  /// Runs `work` (reading the record log, encoding the answer) off the loop and answers `connection` with it.
  private func answerInBackground(
    _ work: @escaping @Sendable () -> Result<[UInt8], SystemError>, connection: ControlConnection, path: String
  ) {
    background.run(work) { [weak connection] result in
      switch result {
      case .success(let line): connection?.reply(line: line)
      case .failure(let error):
        connection?.reply(.failure(ControlError(.internalError, "reading \(path): \(error)")))
      }
    }
  }

  /// The CPU time and peak memory so far of these running apps, read from their cgroups here on the loop: one
  /// `pread` of each kept counter file per app, which never waits on the app (a suspended one included); an app whose
  /// counters cannot be read is left out.
  private func runningUsage(of names: some Sequence<String>) -> [String: (cpuSeconds: Double, peakBytes: Int64)] {
    var usage: [String: (cpuSeconds: Double, peakBytes: Int64)] = [:]
    for name in names {
      guard let pid = daemon.policy.app(named: name)?.pid, let cgroup = daemon.cgroup(of: name, pid: pid),
        let cpu = try? cgroup.cpuSeconds()
      else { continue }
      // A kernel without memory.peak (before 5.19) still has the current charge, the peak's lower bound.
      let peak = (try? cgroup.peakMemory()) ?? (try? cgroup.memoryUsage()) ?? 0
      usage[name] = (cpu, peak)
    }
    return usage
  }

  /// MetricKit-shaped payloads per app, added up from every record of the log and its rotated predecessors (after
  /// `since`) on a background thread: each record exactly once, one at a time (never the whole log in memory); the
  /// running launches' figures so far come from the policy, read here on the loop.
  func metrics(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    if try request.wantsPrometheus() {
      var response = ControlResponse(ok: true)
      response.exposition = daemon.expositionText()
      return response
    }
    // Every field checked before the log is opened: a refusal must leave no descriptor behind.
    let since = try request.sinceDate()
    let app = try request.optionalApp()
    var running = daemon.policy.runningLaunchMetrics(at: MonotonicClock.now())
    if let app { running = running.filter { $0.key == app } }
    let usage = runningUsage(of: running.keys)
    // A launch that ended and whose record is still being made durable is neither running nor in the log yet: it
    // counts from the queue, or an app asked for right after its exit would have no payload at all.
    let unwritten = daemon.unwrittenRecords.filter { record in
      (app == nil || record.app == app)
        && (since.map { (ControlRequest.rfc3339(record.time) ?? .distantPast) >= $0 } ?? true)
    }
    let query = ExitRecordPage.Query(
      files: try daemon.recordLog.openForReading(), currentSize: daemon.recordLog.size(), app: app,
      since: since, limit: .max)
    let host = HostDescription.current()
    let now = AppSupervisor.timestamp()
    let path = daemon.recordLog.path
    let count = { @Sendable [query, running, usage, unwritten] () -> Result<[UInt8], SystemError> in
      Result { () throws(SystemError) in
        var byApp: [String: (totals: MetricTotals, oldest: String)] = [:]
        var logged = Set<RecordIdentity>()
        try ExitRecordPage.visit(query) { record, _ in
          // Newest first: the last time seen of an app is its oldest record.
          byApp[record.app, default: (MetricTotals(), record.time)].totals.count(record)
          byApp[record.app]!.oldest = record.time
          logged.insert(RecordIdentity(record))
          return true
        }
        // The log's size is taken as its writer leaves it, a record's removal from the queue when the loop hears
        // it is durable: one may be in both.
        for record in unwritten where !logged.contains(RecordIdentity(record)) {
          byApp[record.app, default: (MetricTotals(), record.time)].totals.count(record)
        }
        for (name, metrics) in running { byApp[name, default: (MetricTotals(), now)].totals.add(metrics) }
        for (name, figures) in usage {
          byApp[name, default: (MetricTotals(), now)].totals.addUsage(
            cpuSeconds: figures.cpuSeconds, peakMemoryBytes: figures.peakBytes)
        }
        var response = ControlResponse(ok: true)
        response.metrics = byApp.keys.sorted().map { app in
          byApp[app]!.totals.payload(
            timeStampBegin: metricKitTime(since.map(AppSupervisor.timestamp) ?? byApp[app]!.oldest),
            timeStampEnd: metricKitTime(now),
            metaData: PayloadMetaData(
              bundleIdentifier: app, osVersion: host.osVersion, platformArchitecture: host.architecture,
              deviceType: host.name))
        }
        return response.line(encoder: .stable)
      }
    }
    answerInBackground(count, connection: connection, path: path)
    return nil
  }

  /// The diagnostics kept, oldest first, read on a background thread.
  func diagnostics(_ request: ControlRequest, connection: ControlConnection) throws -> ControlResponse? {
    let since = try request.sinceDate()
    let app = try request.optionalApp()
    guard let store = daemon.diagnostics else {
      var response = ControlResponse(ok: true)
      response.diagnostics = []
      return response
    }
    let read = { @Sendable () -> [UInt8] in
      var response = ControlResponse(ok: true)
      response.diagnostics = store.read(app: app, since: since)
      return response.line(encoder: .stable)
    }
    background.run(read) { [weak connection] line in connection?.reply(line: line) }
    return nil
  }
}
