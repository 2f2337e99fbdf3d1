import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamValues

/// Start-up after a daemon restart: takes over every app the previous jetsamd left running (from the state
/// file, checked against the cgroup tree), and records honestly the ones that ended meanwhile.
///
/// It only observes and hands what it found to the policy (through the policy loop, the one entry point): whether an
/// adopted app counts as suspended is the policy's decision from the processes' observed state.
struct Readoption {
  let cgroups: any CgroupBackend
  let launcher: any ProcessLauncher
  let supervisor: AppSupervisor
  let log: Logger
  /// The config in force: how it declares an app, and its defaults for a version-1 state file's app configs.
  let config: DaemonConfig
  /// The one way into the policy.
  let policyLoop: PolicyLoop
  /// The kills the last jetsamd noted just before signalling them (``KillJournal``), the last one of each app: the
  /// state file holds them only once it was saved after the signal.
  let killsDecided: [String: KillJournal.Entry]
  let now: Instant

  /// The last exit of app `name`: still on its way to the log, or recorded.
  private func lastExit(_ name: String) -> ExitRecord? {
    supervisor.records.lastRecord(of: name) ?? policyLoop.policy.lastExit(of: name)
  }

  /// Adopts what runs; returns how many apps were adopted. `storedChannels` are the channels systemd kept,
  /// by app: those claimed are removed from it.
  func run(state: DaemonState?, storedChannels: inout [String: FileDescriptor]) -> Int {
    var adopted = 0
    var known = Set<String>()
    for saved in state?.apps ?? [] {
      known.insert(saved.adopted.name)
      if adopt(saved, storedChannels: &storedChannels) { adopted += 1 }
    }
    // App cgroups the state file does not know (it was lost or is older): adopt what still runs in them.
    for name in ((try? cgroups.appNames()) ?? []).sorted() where !known.contains(name) {
      if !AppName.isValid(name) {
        // A balloon's, or something that is no app of ours.
        if let cgroup = try? cgroups.adoptAppCgroup(name: name) { supervisor.removeLeftover(cgroup) }
      } else if adoptUnknown(name) {
        adopted += 1
      }
    }
    return adopted
  }

  /// Re-adopts one app from the state file, or records its end if it is gone. True when adopted.
  private func adopt(_ saved: DaemonState.SavedApp, storedChannels: inout [String: FileDescriptor]) -> Bool {
    let name = saved.adopted.name
    guard let pid = saved.adopted.pid else { return false }
    // Already recorded before the old daemon died: nothing to adopt, nothing to record again.
    if let last = lastExit(name), last.pid == pid, last.launch == saved.adopted.launch { return false }
    let cgroup = try? cgroups.adoptAppCgroup(name: name)
    let alive = saved.startTime != 0 && launcher.startTime(of: pid) == saved.startTime
    let pidfd = alive ? try? launcher.openPidfd(pid: pid) : nil
    var found = saved.adopted
    // A kill the state file does not hold yet: the last jetsamd died between its decision and the save after it.
    var journaledKill: KillInFlight?
    if found.killInFlight == nil, let entry = killsDecided[name], entry.pid == pid, entry.launch == found.launch {
      found.killInFlight = entry.decision
      journaledKill = entry.decision
    }
    if let cgroup, pidfd != nil { found.observedStopped = supervisor.allStopped(cgroup) }
    do {
      try policyLoop.submit([
        .configure(app: name, settings: settings(of: saved), launchCount: found.launch - 1),
        .adopt(app: found, at: now),
      ])
    } catch {
      log.error("re-adopting \(name): \(error)")
      return false
    }
    guard let cgroup, let pidfd else {
      // It ended while nobody watched: record it with what is still known (its status, if the spawner service
      // that was its parent kept it; an OOM kill shows in its cgroup's counter), never silently.
      let end = launcher.takeReportedEnd(of: pid) ?? .unobserved
      log.warning("\(name) (pid \(pid)) ended while jetsamd was not running" + (end == .unobserved ? "" : ": \(end)"))
      if let cgroup {
        let app = AppProcess(
          name: name, launch: found.launch, cgroup: cgroup, pid: pid, pidfd: FileDescriptor(rawValue: -1))
        supervisor.reportEnd(of: app, end)
      } else {
        try? policyLoop.submit([.exited(app: name, pid: pid, end: end, oomKilled: false, at: now)])
      }
      return false
    }
    let app = AppProcess(name: name, launch: found.launch, cgroup: cgroup, pid: pid, pidfd: pidfd)
    app.startTime = saved.startTime
    app.stop.frozen = (try? cgroup.events().frozen) == true
    // A kill the state file held went out before it was saved: it stays in the next saves until the exit is seen.
    app.killed = saved.adopted.killInFlight != nil
    supervisor.adopt(app, channel: storedChannels.removeValue(forKey: name))
    log.notice(
      "re-adopted \(name) pid \(pid) #\(app.launch) (\(saved.adopted.state.rawValue))"
        + (app.channel == nil ? ", without its channel" : ", with its channel"))
    if let journaledKill {
      // Its SIGKILL may not have gone out before the last jetsamd died: the decision stands, so it is carried out.
      let expected = ExitClassification.classify(
        .signaled(signal: Signal.kill.rawValue, dumpedCore: false), requestedKill: journaledKill.kill,
        sentTerminate: false, oomKilled: false)
      supervisor.kill(name, pid: pid, reason: expected.reason, decision: journaledKill)
    }
    return true
  }

  /// An app cgroup with processes but no state: adopt its oldest process as the app.
  private func adoptUnknown(_ name: String) -> Bool {
    guard let cgroup = try? cgroups.adoptAppCgroup(name: name) else { return false }
    let pids = (try? cgroup.processIDs()) ?? []
    guard let main = pids.min(by: { launcher.startTime(of: $0) < launcher.startTime(of: $1) }),
      let pidfd = try? launcher.openPidfd(pid: main)
    else {
      recordUnknownEnd(name, cgroup: cgroup)
      return false
    }
    let settings = unknownAppSettings(name)
    var found = AppStatus(
      name: name, state: .background, bandFloor: settings.bandFloor, pid: main,
      launch: (lastExit(name)?.launch ?? 0) + 1, stateEnteredAt: now, bandEnteredAt: now, spawnedAt: now)
    found.observedStopped = supervisor.allStopped(cgroup)
    do {
      try policyLoop.submit([
        .configure(app: name, settings: settings, launchCount: found.launch - 1),
        .adopt(app: found, at: now),
      ])
    } catch {
      log.error("adopting \(name): \(error)")
      pidfd.close()
      return false
    }
    let app = AppProcess(name: name, launch: found.launch, cgroup: cgroup, pid: main, pidfd: pidfd)
    app.startTime = launcher.startTime(of: main)
    app.stop.frozen = (try? cgroup.events().frozen) == true
    supervisor.adopt(app, channel: nil)
    log.warning("adopted \(name) pid \(main) from the cgroup tree alone (no state was saved for it)")
    return true
  }

  /// An app cgroup with no process and no state: a launch already recorded whose cgroup was not removed yet, or
  /// one the last jetsamd started just before it died, before its state file held it (its launch was never
  /// answered), whose process has ended since. The spawner service, its parent, tells the second kind by the app's
  /// name: it is recorded with its real status. Without the service its pid is not known, and it can only be said.
  private func recordUnknownEnd(_ name: String, cgroup: any AppCgroupControl) {
    guard let (pid, end) = launcher.takeReportedEnd(ofApp: name), lastExit(name)?.pid != pid else {
      log.notice("\(name): an app cgroup with no process that the state file does not know; removed")
      return supervisor.removeLeftover(cgroup)
    }
    let launch = (lastExit(name)?.launch ?? 0) + 1
    let found = AppStatus(
      name: name, state: .background, bandFloor: nil, pid: pid, launch: launch, stateEnteredAt: now,
      bandEnteredAt: now, spawnedAt: now)
    do {
      try policyLoop.submit([
        .configure(app: name, settings: unknownAppSettings(name), launchCount: launch - 1),
        .adopt(app: found, at: now),
      ])
    } catch {
      log.error("recording \(name)'s end: \(error)")
      return supervisor.removeLeftover(cgroup)
    }
    log.warning("\(name) (pid \(pid)) ended while jetsamd was not running, before its state file held it: \(end)")
    supervisor.reportEnd(
      of: AppProcess(name: name, launch: launch, cgroup: cgroup, pid: pid, pidfd: FileDescriptor(rawValue: -1)), end)
  }

  /// The settings of an app found in the cgroup tree alone.
  private func unknownAppSettings(_ name: String) -> AppSettings {
    // How it was started is not known (its cgroup may hold caps of an earlier config): its settings have no launch
    // spec and no band lift, so that the configure that follows re-adoption gives it the config's caps at once and
    // the rest from its next launch, as to an app whose state was saved. Not in the config either: it runs on, but
    // cannot be launched again until it is configured.
    var settings =
      config.apps[name].map { config.settings(of: $0, named: name) } ?? AppSettings(launch: nil, adHoc: true)
    settings.launch = nil
    settings.bandFloor = nil
    return settings
  }

  /// The saved app's settings: as saved, or (version 1) made from its saved config with this config's defaults.
  private func settings(of saved: DaemonState.SavedApp) -> AppSettings {
    saved.settings ?? saved.spec.map { config.settings(of: $0, named: saved.adopted.name) }
      ?? AppSettings(launch: nil, adHoc: true)
  }
}
