import JetsamValues

/// The CPU monitor: which apps are watched, on what limits, and what happens when one reaches them.
///
/// As iOS does: an app whose CPU time in the trailing window reaches the fatal limit (by default 80 % of a core
/// over 60 s, in the background) gets a CPU exception diagnostic and is killed at once (`cpuResourceLimit`),
/// without waiting for the window to end; one that reaches the non-fatal limit (50 % over 180 s) gets the
/// diagnostic only. The shell only reads counters when asked (`sampleCPU`, on the cadence ``nextCPUSampleAt`` sets,
/// only while some app is watched) and reports them back (`cpuSampled`); every judgement is made here.
extension JetsamPolicy {
  /// The limits app `name` is held to in its present state and tasks, if any.
  func cpuLimits(for app: borrowing TrackedApp) -> (limits: CPUStateLimits, state: CoarseState)? {
    guard app.process != nil, app.requestedKill == nil else { return nil }
    let state: CoarseState
    switch app.state {
    case .foregroundActive, .foregroundInactive:
      state = .foreground
    case .background:
      // A processing task while the device is idle and charging is what such tasks are for (BGProcessingTask).
      if deviceCharging && app.process?.tasks.processing.isEmpty == false { return nil }
      state = .background
    case .launching, .suspended, .notRunning, .terminated:
      return nil
    }
    let limits = (app.settings.cpuLimits ?? config.cpu).limits(in: state)
    return limits.isEmpty ? nil : (limits, state)
  }

  /// Starts, changes or ends app `name`'s CPU watch to fit its state: called whenever the state, its tasks, the
  /// device's charging or the config changes. New limits start a new window.
  mutating func rewatchCPU(_ name: String, at: Instant) {
    // Read and changed in place, through the app's index: this runs at every state change.
    guard let index = trackedApps.index(forKey: name) else { return }
    let wanted = cpuLimits(for: trackedApps.values[index])
    let current = trackedApps.values[index].process?.cpuWatch
    if let wanted {
      guard current?.limits != wanted.limits || current?.state != wanted.state else { return }
      trackedApps[at: index].process?.cpuWatch = CPUWatch(limits: wanted.limits, state: wanted.state)
      // Its window needs an anchor. With no round under way, the first one starts now; a round already due reads it
      // anyway; otherwise this app alone is read now and the rounds keep their cadence (bringing a round forward for
      // every app that starts a watch made a launch storm read every watched app at every launch: n² readings, and n
      // points in each window).
      if let round = nextCPUSampleAt, round > at {
        readCPUAlone(name, at: at)
      } else if nextCPUSampleAt == nil {
        nextCPUSampleAt = at
      }
    } else if current != nil {
      trackedApps[at: index].process?.cpuWatch = nil
    }
  }

  /// Reads app `name` on its own at `at`, between two rounds.
  private mutating func readCPUAlone(_ name: String, at: Instant) {
    cpuSoloReadsDue.insert(name)
    if cpuSoloReadsAt.map({ $0 > at }) ?? true { cpuSoloReadsAt = at }
  }

  /// Re-fits every app's watch (the device's charging or the config changed).
  mutating func rewatchEveryApp(at: Instant) {
    for name in trackedApps.keys.sorted() { rewatchCPU(name, at: at) }
  }

  /// The device is (or is no longer) idle and charging: processing tasks are exempt while it is.
  mutating func setCharging(_ charging: Bool, at: Instant) -> [PolicyAction] {
    guard charging != deviceCharging else { return [] }
    deviceCharging = charging
    rewatchEveryApp(at: at)
    return []
  }

  /// The sampling round at a tick: asks for every watched app's counter, and sets the next round a twelfth of the
  /// shortest watched window later (none while no app is watched, so an idle device costs nothing). Between rounds,
  /// only the apps due a reading of their own are read.
  mutating func cpuSamplingTick(at: Instant) -> [PolicyAction] {
    guard let due = nextCPUSampleAt, due <= at else { return cpuSoloReadsTick(at: at) }
    cpuSoloReadsDue = []
    cpuSoloReadsAt = nil
    var watched: [AppProcessRef] = []
    var shortest: Duration?
    for index in trackedApps.values.indices {
      guard let process = trackedApps.values[index].process, let watch = process.cpuWatch else { continue }
      watched.append(AppProcessRef(app: trackedApps.values[index].name, pid: process.pid))
      if let window = watch.limits.windows.first, shortest.map({ window < $0 }) ?? true { shortest = window }
    }
    guard let shortest, !watched.isEmpty else {
      nextCPUSampleAt = nil
      return []
    }
    watched.sort { $0.app < $1.app }
    nextCPUSampleAt = at.advanced(by: Self.cpuSampleInterval(shortestWindow: shortest))
    return [.sampleCPU(watched)]
  }

  /// A twelfth of the shortest window, at most 100 times a second.
  static func cpuSampleInterval(shortestWindow: Duration) -> Duration {
    max(shortestWindow / CPUMonitorConfig.samplesPerWindow, .milliseconds(10))
  }

  /// Reads the apps due a reading of their own.
  private mutating func cpuSoloReadsTick(at: Instant) -> [PolicyAction] {
    guard let readsAt = cpuSoloReadsAt, readsAt <= at else { return [] }
    let watched = cpuSoloReadsDue.sorted().compactMap { name -> AppProcessRef? in
      guard let process = trackedApps[name]?.process, process.cpuWatch != nil else { return nil }
      return AppProcessRef(app: name, pid: process.pid)
    }
    cpuSoloReadsDue = []
    cpuSoloReadsAt = nil
    return watched.isEmpty ? [] : [.sampleCPU(watched)]
  }

  /// Readings came back: each watched app's usage over its windows is judged against its limits.
  mutating func cpuSampled(_ samples: [CPUSample], at: Instant) -> [PolicyAction] {
    var actions: [PolicyAction] = []
    for sample in samples {
      // In place: a copy of the process would make adding the point copy the watch's samples.
      guard trackedApps[sample.app]?.process?.pid == sample.pid, trackedApps[sample.app]?.process?.cpuWatch != nil
      else { continue }
      trackedApps[sample.app]?.process?.cpuWatch?.add(CPUWatch.Point(at: at, cpuSeconds: sample.cpuSeconds))
      actions += judgeCPU(sample.app, at: at)
    }
    return actions
  }

  /// The fatal limit reached: the exception's stacks, then the kill (the shell takes the stacks before it sends
  /// the SIGKILL). The non-fatal one reached: the exception only, once per run over it.
  private mutating func judgeCPU(_ name: String, at: Instant) -> [PolicyAction] {
    // An app on its way out (killed for this or anything else) is judged no more.
    guard trackedApps[name]?.requestedKill == nil, let process = trackedApps[name]?.process,
      let watch = process.cpuWatch
    else { return [] }
    func report(_ limit: CPUBudget, fatal: Bool) -> CPUUsageReport? {
      guard let usage = watch.usage(over: limit.window), usage.cpuSeconds >= limit.allowedSeconds else { return nil }
      return CPUUsageReport(
        state: watch.state, cpuSeconds: usage.cpuSeconds, windowSeconds: limit.window.seconds,
        sampledSeconds: usage.sampled.seconds, limitPercent: limit.limitPercent, fatal: fatal)
    }
    if let fatal = watch.limits.fatal {
      if let report = report(fatal, fatal: true) {
        return [.diagnose(app: name, pid: process.pid, .cpuException(report))]
          + killForApp(name, .cpuLimit(report), reason: .cpuResourceLimit)
      }
      readBeforeFatalLimit(name, fatal, watch: watch, at: at)
    }
    guard let nonFatal = watch.limits.nonFatal else { return [] }
    guard let report = report(nonFatal, fatal: false) else {
      if watch.nonFatalReported { trackedApps[name]?.process?.cpuWatch?.nonFatalReported = false }
      return []
    }
    guard !watch.nonFatalReported else { return [] }
    trackedApps[name]?.process?.cpuWatch?.nonFatalReported = true
    return [.diagnose(app: name, pid: process.pid, .cpuException(report))]
  }

  /// An app burning towards its fatal limit is read again when, at its present rate, it would reach it, if that
  /// comes before the next round: the kill then comes close to the moment the limit is reached, not up to a
  /// twelfth of the window later. Never sooner than an eighth of a round, so that an app hovering just under the
  /// limit costs a few readings a round, not a storm.
  private mutating func readBeforeFatalLimit(_ name: String, _ limit: CPUBudget, watch: CPUWatch, at: Instant) {
    guard let round = nextCPUSampleAt, let rate = watch.recentRate, rate > 0,
      let used = watch.usage(over: limit.window)?.cpuSeconds
    else { return }
    let interval = Self.cpuSampleInterval(shortestWindow: watch.limits.windows.first ?? limit.window)
    let reach = Duration.seconds((limit.allowedSeconds - used) / rate)
    let readAt = at.advanced(by: max(reach, interval / 8))
    if readAt < round { readCPUAlone(name, at: readAt) }
  }
}
