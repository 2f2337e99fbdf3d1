import CJetsamShim
import Foundation
import Glibc
import JetsamCore

/// Surviving a daemon restart: the state file, re-adopting apps that kept running, and honest records for
/// apps that ended while no daemon was watching.
extension Daemon {
  var stateFilePath: String { stateDirectory + "/state.json" }

  /// How long state changes may wait before the state file is rewritten (a crash in this window leaves the
  /// previous state, which re-adoption reconciles with the processes it finds).
  static let stateSaveDelay: Duration = .milliseconds(20)

  /// Arms the state-file timer if something changed and no write is pending.
  func scheduleStateSave() {
    // A new or ended process must be in the file at once: a crash must not lose an app's pid.
    if processSetChanged {
      processSetChanged = false
      return saveStateIfChanged()
    }
    guard stateDirty, !stateSavePending else { return }
    if stateTimer == nil {
      stateTimer = try? loop.timer(at: nil) { [unowned self] in
        self.stateSavePending = false
        self.saveStateIfChanged()
      }
    }
    stateSavePending = true
    stateTimer?.schedule(at: MonotonicClock.now().advanced(by: Daemon.stateSaveDelay))
  }

  /// Writes the state file if something an adoption needs has changed.
  func saveStateIfChanged() {
    guard stateDirty else { return }
    stateDirty = false
    var saved: [DaemonState.SavedApp] = []
    for status in policy.apps where status.state.isRunning {
      guard let app = processes[status.name], let pid = status.pid, let spawnedAt = status.spawnedAt else { continue }
      let adopted = AdoptedApp(
        name: status.name, pid: pid, launch: status.launch, state: status.state, bandFloor: status.bandFloor,
        stateEnteredAt: status.stateEnteredAt, bandEnteredAt: status.bandEnteredAt, spawnedAt: spawnedAt)
      saved.append(
        DaemonState.SavedApp(
          adopted: adopted, startTime: app.startTime,
          spec: launchSpecs[status.name] ?? config.apps[status.name] ?? AppConfig(command: ["?"]),
          summary: app.summary, previousDigest: app.previousDigest, savedDigest: app.savedDigest,
          restoredDigest: app.restoredDigest))
    }
    do {
      try DaemonState(bootID: DaemonState.currentBootID, apps: saved).write(path: stateFilePath)
    } catch {
      log.error("writing \(stateFilePath): \(error)")
      stateDirty = true
    }
  }

  /// At start-up: takes over every app the previous daemon left running (from the state file, checked
  /// against the cgroup tree), and records the ones that ended meanwhile. Returns how many were adopted.
  func adoptSurvivors() -> Int {
    let state: DaemonState?
    do {
      state = try DaemonState.read(path: stateFilePath)
    } catch {
      log.error("ignoring damaged \(stateFilePath): \(error)")
      state = nil
    }
    let now = MonotonicClock.now()
    var adopted = 0
    var known = Set<String>()
    if let state, state.bootID == DaemonState.currentBootID {
      for saved in state.apps {
        known.insert(saved.adopted.name)
        if adopt(saved, at: now) { adopted += 1 }
      }
    }
    // App cgroups the state file does not know (it was lost or is older): adopt what still runs in them.
    for name in ((try? device.appNames()) ?? []).sorted() where !known.contains(name) {
      if name == Balloon.cgroupName || !AppName.isValid(name) {
        removeLeftover(name)
      } else if adoptUnknown(name, at: now) {
        adopted += 1
      }
    }
    stateDirty = true
    saveStateIfChanged()
    return adopted
  }

  /// Re-adopts one app from the state file, or records its end if it is gone. True when adopted.
  private func adopt(_ saved: DaemonState.SavedApp, at now: Instant) -> Bool {
    let name = saved.adopted.name
    launchSpecs[name] = saved.spec
    // Already recorded before the old daemon died: nothing to adopt, nothing to record again.
    if let last = lastExits[name], last.pid == saved.adopted.pid, last.launch == saved.adopted.launch {
      return false
    }
    let cgroup = try? device.adoptApp(name: name)
    let alive = jetsam_process_start_time(saved.adopted.pid) == saved.startTime && saved.startTime != 0
    let pidfd = alive ? try? openPidfd(pid: saved.adopted.pid) : nil
    _ = try? policy.handle(
      .configure(app: name, bandFloor: saved.adopted.bandFloor, launchCount: saved.adopted.launch - 1))
    var adopted = saved.adopted
    if let cgroup, alive {
      // The file may lag the last moments before the crash: the processes say whether the app is stopped.
      let pids = (try? cgroup.processIDs()) ?? []
      let stopped =
        !pids.isEmpty && pids.allSatisfy { processState(pid: $0) == "T" || (try? cgroup.isFrozen()) == true }
      if stopped && adopted.state != .suspended {
        adopted.state = .suspended
        adopted.bandEnteredAt = now
      } else if !stopped && adopted.state == .suspended {
        adopted.state = .background
      }
    }
    perform((try? policy.handle(.adopt(app: adopted, at: now))) ?? [])
    guard let cgroup, let pidfd else {
      // It ended while nobody watched: record it with what the kernel can still tell (an OOM kill shows in its
      // cgroup's counter), never silently.
      log.warning("\(name) (pid \(saved.adopted.pid)) ended while jetsamd was not running")
      if let cgroup {
        let app = AppProcess(
          name: name, launch: saved.adopted.launch, cgroup: cgroup, pid: saved.adopted.pid,
          pidfd: FileDescriptor(rawValue: -1))
        restore(saved, into: app)
        processes[name] = app
        app.end = .unobserved
        reportIfGone(name)
      } else {
        dispatch(.exited(app: name, pid: saved.adopted.pid, end: .unobserved, oomKilled: false, at: now))
      }
      return false
    }
    let app = AppProcess(name: name, launch: saved.adopted.launch, cgroup: cgroup, pid: saved.adopted.pid, pidfd: pidfd)
    app.adopted = true
    app.startTime = saved.startTime
    app.frozen = (try? cgroup.isFrozen()) == true
    restore(saved, into: app)
    processes[name] = app
    appliedBands[name] = policy.app(named: name)?.band
    watchExit(of: app)
    if let channel = storedChannels.removeValue(forKey: name) {
      // systemd kept the app's channel: it goes on as if nothing happened (it speaks again when it next writes).
      attachChannel(channel, to: app)
    }
    log.notice(
      "re-adopted \(name) pid \(app.pid) #\(app.launch) (\(saved.adopted.state.rawValue))"
        + (app.channel == nil ? ", without its channel" : ", with its channel"))
    return true
  }

  private func restore(_ saved: DaemonState.SavedApp, into app: AppProcess) {
    app.summary = saved.summary
    app.previousDigest = saved.previousDigest
    app.savedDigest = saved.savedDigest
    app.restoredDigest = saved.restoredDigest
    app.acknowledgements = saved.spec.acknowledgements
    app.hooks = saved.spec.hooks
  }

  /// An app cgroup with processes but no state: adopt its oldest process as the app, suspended if every
  /// process is stopped, background otherwise.
  private func adoptUnknown(_ name: String, at now: Instant) -> Bool {
    guard let cgroup = try? device.adoptApp(name: name) else { return false }
    let pids = (try? cgroup.processIDs()) ?? []
    guard let main = pids.min(by: { jetsam_process_start_time($0) < jetsam_process_start_time($1) }),
      let pidfd = try? openPidfd(pid: main)
    else {
      try? cgroup.remove()
      return false
    }
    let stopped = pids.allSatisfy { processState(pid: $0) == "T" }
    let launch = (lastExits[name]?.launch ?? 0) + 1
    let adopted = AdoptedApp(
      name: name, pid: main, launch: launch, state: stopped ? .suspended : .background,
      bandFloor: config.apps[name]?.band,
      stateEnteredAt: now, bandEnteredAt: now, spawnedAt: now)
    _ = try? policy.handle(.configure(app: name, bandFloor: adopted.bandFloor, launchCount: launch - 1))
    perform((try? policy.handle(.adopt(app: adopted, at: now))) ?? [])
    let app = AppProcess(name: name, launch: launch, cgroup: cgroup, pid: main, pidfd: pidfd)
    app.adopted = true
    app.startTime = jetsam_process_start_time(main)
    processes[name] = app
    watchExit(of: app)
    log.warning("adopted \(name) pid \(main) from the cgroup tree alone (no state was saved for it)")
    return true
  }

  private func removeLeftover(_ name: String) {
    guard let cgroup = try? device.adoptApp(name: name) else { return }
    try? cgroup.killAll()
    try? cgroup.remove()
  }

  /// Watches an app's main process for its exit.
  func watchExit(of app: AppProcess) {
    let name = app.name
    do {
      app.exitSource = try loop.watch(fd: app.pidfd.rawValue, events: EpollEvents.readable) { [unowned self] _ in
        self.mainProcessEnded(name)
      }
    } catch {
      log.error("watching \(name)'s exit: \(error)")
    }
  }

  /// How an adopted app's main process ended: it is not our child, so ask its pidfd (Linux 6.15+) or, while it
  /// is a zombie nobody has reaped yet, /proc (the kernel records the pidfd's exit only at reaping).
  func adoptedExit(_ app: AppProcess) -> ProcessEnd {
    var status: Int32 = 0
    for _ in 0..<50 {
      if jetsam_pidfd_exit_status(app.pidfd.rawValue, &status) == 1 { return ProcessEnd(waitStatus: status) }
      let zombie = jetsam_zombie_exit_status(app.pid, app.startTime)
      if zombie >= 0 { return ProcessEnd(waitStatus: zombie) }
      usleep(1000)
    }
    return .unobserved
  }
}

extension ProcessEnd {
  /// A waitpid(2) status.
  init(waitStatus status: Int32) {
    let signal = status & 0x7f
    self = signal == 0 ? .exited(code: (status >> 8) & 0xff) : .signaled(signal: signal, dumpedCore: status & 0x80 != 0)
  }
}
