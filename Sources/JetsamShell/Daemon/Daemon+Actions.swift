import CJetsamShim
import Foundation
import Glibc
import JetsamCore
import JetsamProtocol

extension Daemon {
  /// Carries out the policy's actions in order.
  func perform(_ actions: [PolicyAction]) {
    for action in actions {
      switch action {
      case .spawn(let app, let launch): spawn(app, launch: launch)
      case .suspend(let app, _): suspend(app)
      case .resume(let app, _): resume(app)
      case .kill(let app, _, let reason, let snapshot): kill(app, reason: reason, snapshot: snapshot)
      case .terminate(let app, _): terminate(app)
      case .stateChanged(let app, let from, let to, let band): stateChanged(app, from: from, to: to, band: band)
      case .levelChanged(let from, let to, let available):
        log.notice("pressure \(from.name) → \(to.name) (\(ByteSize.format(available)) available)")
        journal.pressureChanged(from: from, to: to, available: available)
      case .recordExit(let record): recordExit(record)
      case .deliver(let app, let pid, let event): deliver(event, to: app, pid: pid)
      case .reply(let app, let pid, let requestID, let fields):
        channel(of: app, pid: pid)?.send(
          AppLine("reply", [("id", String(requestID))] + fields.map { ($0.key, $0.value) }))
      case .appError(let app, let pid, let requestID, let code, let message):
        sendError(to: app, pid: pid, requestID: requestID, code: code, message: message)
      }
    }
    if !pendingStops.isEmpty { completeStops() }
  }

  // MARK: Launch

  private func spawn(_ name: String, launch: Int) {
    guard let spec = launchSpecs[name] ?? config.apps[name] else {
      enqueue(.spawnFailed(app: name, message: "no command for \(name)", at: MonotonicClock.now()))
      return
    }
    let caps = config.defaults.overridden(by: spec.caps)
    var cgroup: AppCgroup?
    do {
      let appCgroup = try device.makeApp(
        name: name,
        limits: AppLimits(memoryBytes: caps.memoryLimit?.bytes, cpuPercent: caps.cpuLimit, pids: caps.pidsLimit))
      cgroup = appCgroup
      let output = try FileDescriptor.open(
        "\(stateDirectory)/logs/\(name).log", O_WRONLY | O_APPEND | O_CREAT, mode: 0o640)
      defer { output.close() }
      let pair = try AppChannel.makePair()
      defer { pair.app.close() }  // the app has its own copy once spawned
      var environment = ProcessInfo.processInfo.environment.filter { !Daemon.isDaemonVariable($0.key) }
      for (key, value) in spec.env { environment[key] = value }
      for (key, value) in launchEnvironment(name, launch: launch) { environment[key] = value }
      let request = SpawnRequest(
        arguments: spec.command,
        environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
        workingDirectory: spec.workingDirectory ?? stateDirectory,
        user: try spec.user.map { name throws in try SpawnUser.lookup(name: name) },
        cgroupDirectory: appCgroup.spawnDirectory,
        joinProcsFiles: appCgroup.joinProcsFiles,
        oomScoreAdj: oomScoreAdj(for: .foreground),
        stdin: nil, stdout: output, stderr: output,
        passedDescriptors: [(source: pair.app, target: Daemon.channelDescriptor)])
      let process: SpawnedProcess
      do {
        process = try spawnProcess(request)
      } catch {
        pair.daemon.close()
        throw error
      }
      let app = AppProcess(name: name, launch: launch, cgroup: appCgroup, pid: process.pid, pidfd: process.pidfd)
      app.acknowledgements = spec.acknowledgements
      app.hooks = spec.hooks
      app.previousDigest = lastExits[name]?.stateDigest
      app.summary = lastExits[name]?.stateSummary
      processes[name] = app
      appliedBands[name] = .foreground
      app.startTime = jetsam_process_start_time(process.pid)
      watchExit(of: app)
      openChannel(pair.daemon, for: app)
      log.info("launched \(name) #\(launch) pid \(process.pid) in \(appCgroup.displayPath)")
      enqueue(.spawned(app: name, pid: process.pid, at: MonotonicClock.now()))
    } catch {
      if let cgroup, processes[name] == nil { try? cgroup.remove() }
      log.error("launch of \(name) failed: \(error)")
      enqueue(.spawnFailed(app: name, message: "\(error)", at: MonotonicClock.now()))
    }
  }

  // MARK: Suspend and resume

  /// Tells every process of the app to stop (SIGSTOP, or the freezer); ``completeStops()`` then waits for all
  /// the apps of this batch of actions together, so that suspending many apps costs one wait, not one each.
  private func suspend(_ name: String) {
    guard let app = processes[name] else { return }
    do {
      switch config.suspend.mode {
      case .signal: for pid in try app.cgroup.processIDs() { Glibc.kill(pid, SIGSTOP) }
      case .freezer:
        try app.cgroup.freeze()
        app.frozen = true
      }
      pendingStops.append(name)
    } catch {
      log.error("suspending \(name): \(error)")
      enqueue(.suspendCompleted(app: name, at: MonotonicClock.now()))
    }
  }

  /// Waits until every app told to stop is seen stopped, and reports each with the moment it was: suspended
  /// time counts from when the last process stopped.
  func completeStops() {
    var waiting = pendingStops
    pendingStops = []
    for _ in 0..<20_000 where !waiting.isEmpty {
      waiting.removeAll { name in
        guard let app = processes[name] else { return true }
        guard isStopped(app) else { return false }
        enqueue(.suspendCompleted(app: name, at: MonotonicClock.now()))
        return true
      }
      if !waiting.isEmpty { usleep(50) }
    }
    for name in waiting {
      log.error("\(name)'s processes did not all stop within a second; counting it suspended anyway")
      enqueue(.suspendCompleted(app: name, at: MonotonicClock.now()))
    }
  }

  /// Whether every process of the app has stopped. In signal mode it re-reads the cgroup and stops any
  /// process forked while the signals went out.
  private func isStopped(_ app: AppProcess) -> Bool {
    if config.suspend.mode == .freezer { return (try? app.cgroup.isFrozen()) ?? true }
    let pids = (try? app.cgroup.processIDs()) ?? []
    var stopped = true
    for pid in pids {
      guard let state = processState(pid: pid), !"TtZX".contains(state) else { continue }  // gone or stopped
      Glibc.kill(pid, SIGSTOP)
      stopped = false
    }
    return stopped
  }

  private func resume(_ name: String) {
    guard let app = processes[name] else { return }
    do {
      try continueEveryProcess(of: app)
    } catch {
      log.error("resuming \(name): \(error)")
    }
  }

  /// Undoes either kind of suspension (the mode may have been changed by a reload since the app was stopped).
  func continueEveryProcess(of app: AppProcess) throws {
    if app.frozen {
      try app.cgroup.thaw()
      app.frozen = false
    }
    for pid in try app.cgroup.processIDs() { Glibc.kill(pid, SIGCONT) }
  }

  // MARK: Kill and terminate

  private func kill(_ name: String, reason: ExitReason, snapshot: [SnapshotEntry]?) {
    guard let app = processes[name], app.end == nil else { return }
    app.memoryAtKill = try? app.cgroup.memoryUsage()
    // The main process first (its memory is usually the bulk), then everything else in the cgroup.
    _ = try? sendSignal(pidfd: app.pidfd, Signal.kill)
    let signalled = MonotonicClock.now()
    do { try app.cgroup.killAll() } catch { log.error("cgroup.kill for \(name): \(error)") }
    releaseMemoryInBackground(app)
    // `signalled=` is the CLOCK_MONOTONIC nanosecond of the SIGKILL (make bench measures from it).
    log.notice(
      "killing \(name) pid \(app.pid) (\(reason.rawValue), \(ByteSize.format(app.memoryAtKill ?? 0))) "
        + "signalled=\(signalled.nanoseconds)")
    if let snapshot {
      app.snapshot = snapshot.map { entry in
        var entry = entry
        entry.memoryBytes =
          entry.name == name ? (app.memoryAtKill ?? 0) : ((try? processes[entry.name]?.cgroup.memoryUsage()) ?? 0)
        return entry
      }
    }
  }

  /// Reaps a killed process's memory on another thread (process_mrelease blocks while it frees), so that
  /// memory comes back sooner than the dying process would free it itself, without stalling the loop.
  ///
  /// The release thread holds a reference to the victim's memory while it works: the app is reported only
  /// after the thread is done, or the next pressure reading could still count memory that is on its way back.
  private func releaseMemoryInBackground(_ app: AppProcess) {
    let pidfd = dup(app.pidfd.rawValue)
    let done = jetsam_eventfd()
    guard pidfd >= 0, done >= 0 else {
      if pidfd >= 0 { Glibc.close(pidfd) }
      if done >= 0 { Glibc.close(done) }
      return
    }
    let name = app.name
    do {
      app.releaseSource = try loop.watch(fd: done, events: EpollEvents.readable) { [unowned self] _ in
        Glibc.close(done)
        guard let app = self.processes[name] else { return }
        app.releaseSource?.cancel()
        app.releaseSource = nil
        self.reportIfGone(name)
      }
    } catch {
      Glibc.close(pidfd)
      Glibc.close(done)
      return
    }
    Thread.detachNewThread {
      _ = try? releaseMemory(pidfd: FileDescriptor(rawValue: pidfd))
      Glibc.close(pidfd)
      var one: UInt64 = 1
      _ = Glibc.write(done, &one, 8)
    }
  }

  private func terminate(_ name: String) {
    guard let app = processes[name] else { return }
    // A stopped process cannot run its SIGTERM handler: let it run to end itself.
    try? continueEveryProcess(of: app)
    _ = try? sendSignal(pidfd: app.pidfd, Signal.terminate)
  }

  // MARK: States and bands

  private func stateChanged(_ name: String, from: LifecycleState, to: LifecycleState, band: Band) {
    stateDirty = true
    if from == .launching || to == .terminated { processSetChanged = true }
    log.debug("\(name): \(from.rawValue) → \(to.rawValue) (band \(band))")
    guard processes[name] != nil, to.isRunning, appliedBands[name] != band else { return }
    appliedBands[name] = band
    // Applied right after the current events (the reply to a request goes out first): rewriting every
    // process's oom_score_adj is the slowest part of a state change.
    pendingScoreUpdates.insert(name)
    if scoreTimer == nil { scoreTimer = try? loop.timer(at: nil) { [unowned self] in self.applyScores() } }
    scoreTimer?.schedule(at: MonotonicClock.now())
  }

  /// The kernel's OOM killer, should it ever act before jetsam, then agrees with jetsam's order.
  func applyScores() {
    let names = pendingScoreUpdates
    pendingScoreUpdates = []
    for name in names {
      guard let app = processes[name], let band = appliedBands[name] else { continue }
      let score = oomScoreAdj(for: band)
      for pid in (try? app.cgroup.processIDs()) ?? [] { try? setOOMScoreAdj(pid: pid, score) }
    }
  }

  /// oom_score_adj for a band: lower bands are the kernel's first choice, as they are jetsam's
  /// (idle 900, background 660, foreground 100, audio and above at the floor).
  func oomScoreAdj(for band: Band) -> Int32 {
    max(oomScoreFloor, Int32(900 - band.rawValue * 80))
  }

  // MARK: Exits

  /// The main process ended: reap it, kill whatever it left in the cgroup, and report the app once the
  /// cgroup is empty (so the memory it frees is back before the next pressure reading).
  func mainProcessEnded(_ name: String) {
    guard let app = processes[name], app.end == nil else { return }
    guard let end = app.adopted ? adoptedExit(app) : try? reapExit(pidfd: app.pidfd) else { return }
    app.end = end
    app.exitSource?.cancel()
    app.exitSource = nil
    if (try? app.cgroup.isPopulated()) == true {
      try? app.cgroup.killAll()
      do {
        app.drainSource = try loop.watch(fd: app.cgroup.eventsDescriptor.rawValue, events: EpollEvents.priority) {
          [unowned self] _ in
          if (try? app.cgroup.isPopulated()) != true { self.appDrained(name) }
        }
      } catch {
        log.error("watching \(name)'s cgroup empty: \(error)")
      }
      // It may have emptied before the watch was armed.
      if (try? app.cgroup.isPopulated()) == true { return }
    }
    appDrained(name)
  }

  private func appDrained(_ name: String) {
    guard let app = processes[name] else { return }
    app.drainSource?.cancel()
    app.drainSource = nil
    reportIfGone(name)
  }

  /// Reports the app's exit to the policy once it is wholly gone: main process reaped, cgroup empty, and
  /// any memory release finished.
  func reportIfGone(_ name: String) {
    guard let app = processes[name], let end = app.end, !app.reported, app.drainSource == nil,
      app.releaseSource == nil
    else { return }
    app.reported = true
    let oomKilled = ((try? app.cgroup.oomKillCount()) ?? 0) > 0
    dispatch(.exited(app: name, pid: app.pid, end: end, oomKilled: oomKilled, at: MonotonicClock.now()))
    monitor.sample()
  }

  /// Completes a record with what the shell measures, writes it durably, then reports it.
  private func recordExit(_ decided: ExitRecord) {
    var record = decided
    record.time = Daemon.timestamp()
    if let app = processes[record.app] {
      record.memoryBytes = app.memoryAtKill ?? (try? app.cgroup.memoryUsage()) ?? 0
      record.peakMemoryBytes = max((try? app.cgroup.peakMemory()) ?? 0, record.memoryBytes)
      record.memoryLimitBytes = try? app.cgroup.memoryLimit()
      record.cpuSeconds = (try? app.cgroup.cpuSeconds()) ?? 0
      if record.snapshot != nil, let snapshot = app.snapshot { record.snapshot = snapshot }
      record.stateSummary = app.summary
      record.stateDigest = app.savedDigest
      if app.channel != nil { serviceManager.removeStoredDescriptor(name: Daemon.channelStorePrefix + record.app) }
      app.close()
      do { try app.cgroup.remove() } catch { log.warning("removing \(record.app)'s cgroup: \(error)") }
      processes[record.app] = nil
      appliedBands[record.app] = nil
    }
    unwrittenRecords.append(record)
    do {
      while let next = unwrittenRecords.first {
        try records.append(next)
        unwrittenRecords.removeFirst()
        report(next)
      }
    } catch {
      log.error("exit record log \(records.path): \(error); \(unwrittenRecords.count) record(s) kept for retry")
    }
    if shuttingDown { finishShutdownIfDone() }
  }

  /// Tells the world about a record that is already durable.
  private func report(_ record: ExitRecord) {
    lastExits[record.app] = record
    journal.record(record)
    var detail = "\(record.reason.rawValue) (\(record.terminationReason)) in \(record.state)"
    detail += " after \(String(format: "%.1f", record.stateSeconds))s"
    log.notice("exit: \(record.app) pid \(record.pid) #\(record.launch): \(detail)")
    control.broadcast(record)
  }

  static func timestamp(_ date: Date = Date()) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }

  // MARK: Shutdown

  /// SIGTERM/SIGINT: end every app gracefully, write their records, remove the cgroups, exit.
  func beginShutdown() {
    guard !shuttingDown else { return }
    if StopOrRestart.isRestart {
      return exitForRestart()
    }
    shuttingDown = true
    log.notice("stopping: terminating \(processes.count) app(s)")
    serviceManager.stopping(status: "stopping: terminating \(processes.count) app(s)")
    control.stopAccepting()
    balloon?.release()
    balloon = nil
    for name in processes.keys.sorted() { try? request(.terminate(app: name, at: MonotonicClock.now())) }
    finishShutdownIfDone()
  }

  /// `systemctl restart`: leave every app running (KillMode=process spares them) with the state file current,
  /// for the next jetsamd to re-adopt.
  func exitForRestart() {
    log.notice("restarting: leaving \(processes.count) app(s) running for the next jetsamd to re-adopt")
    serviceManager.stopping(status: "restarting: \(processes.count) app(s) left running")
    stateDirty = true
    saveStateIfChanged()
    balloon?.release()
    balloon = nil
    monitor.stop()
    control.close()
    loop.exit(code: unwrittenRecords.isEmpty ? 0 : 1)
  }

  func finishShutdownIfDone() {
    guard processes.isEmpty else { return }
    monitor.stop()
    do { try device.remove() } catch { log.warning("removing device cgroup: \(error)") }
    control.close()
    log.notice("stopped; \(records.written) record(s) written this run")
    loop.exit(code: unwrittenRecords.isEmpty ? 0 : 1)
  }
}
