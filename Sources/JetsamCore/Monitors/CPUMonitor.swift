import JetsamValues

/// The CPU monitor, a machine of its own: which apps are watched, on what limits, when their counters are read, and
/// what their usage comes to.
///
/// As iOS does: an app whose CPU time in the trailing window reaches the fatal limit (by default 80 % of a core
/// over 60 s, in the background) gets a CPU exception diagnostic and is killed at once (`cpuResourceLimit`),
/// without waiting for the window to end; one that reaches the non-fatal limit (50 % over 180 s) gets the
/// diagnostic only. The shell only reads counters when asked (`sampleCPU`, on the cadence this sets, only while some
/// app is watched) and reports them back (`cpuSampled`).
///
/// It owns the watches and the reading schedule, and nothing else: what it needs of an app comes in as a
/// ``Subject``, and what it finds goes out as a ``Judgement`` that the policy turns into a diagnostic or a kill.
struct CPUMonitor: Sendable {
  /// What the monitor reads of an app to fit its watch, taken from the lifecycle at the moment it asks.
  struct Subject {
    var pid: Int32
    var state: LifecycleState
    /// Whether a kill was asked for it: an app on its way out is watched no more.
    var killRequested: Bool
    /// Whether it holds an open `processing` background task.
    var runsProcessingTask: Bool
    /// Its own limits, where its config sets them.
    var ownLimits: CPUMonitorConfig?
  }

  /// What a reading came to.
  enum Judgement: Equatable {
    /// The non-fatal limit reached: the exception diagnostic only, once per run over it.
    case exceeded(CPUUsageReport)
    /// The fatal limit reached: the diagnostic, then the kill.
    case fatal(CPUUsageReport)
  }

  /// A watched process: the watch belongs to it and goes with it.
  private struct Watched: Sendable {
    var pid: Int32
    var watch: CPUWatch
  }

  private var watches: [String: Watched] = [:]
  /// When the next round reads every watched app; nil while none is watched.
  private(set) var nextRoundAt: Instant?
  /// Apps read on their own between two rounds (a new watch's anchor, or a fatal limit about to be reached), and
  /// from when.
  private var soloReadsDue: Set<String> = []
  private var soloReadsAt: Instant?

  /// The earliest instant the monitor needs a tick.
  var nextDeadline: Instant? {
    guard let round = nextRoundAt else { return soloReadsAt }
    return soloReadsAt.map { min($0, round) } ?? round
  }

  /// Whether app `name` is watched now.
  func isWatching(_ name: String) -> Bool { watches[name] != nil }

  /// The limits `subject` is held to in its present state and tasks, if any.
  static func limits(for subject: Subject, deviceCharging: Bool, defaults: CPUMonitorConfig)
    -> (limits: CPUStateLimits, state: CoarseState)?
  {
    guard !subject.killRequested else { return nil }
    let state: CoarseState
    switch subject.state {
    case .foregroundActive, .foregroundInactive:
      state = .foreground
    case .background:
      // A processing task while the device is idle and charging is what such tasks are for (BGProcessingTask).
      if deviceCharging && subject.runsProcessingTask { return nil }
      state = .background
    case .launching, .suspended, .notRunning, .terminated:
      return nil
    }
    let limits = (subject.ownLimits ?? defaults).limits(in: state)
    return limits.isEmpty ? nil : (limits, state)
  }

  /// Starts, changes or ends app `name`'s watch to fit `wanted` (nil: no process, or no limit in its state). New
  /// limits start a new window.
  mutating func rewatch(_ name: String, pid: Int32?, wanted: (limits: CPUStateLimits, state: CoarseState)?, at: Instant)
  {
    guard let pid, let wanted else {
      watches.removeValueReleasingStorage(forKey: name)
      return
    }
    if let current = watches[name], current.pid == pid, current.watch.limits == wanted.limits,
      current.watch.state == wanted.state
    {
      return
    }
    watches[name] = Watched(pid: pid, watch: CPUWatch(limits: wanted.limits, state: wanted.state))
    // Its window needs an anchor. With no round under way, the first one starts now; a round already due reads it
    // anyway; otherwise this app alone is read now and the rounds keep their cadence (bringing a round forward for
    // every app that starts a watch made a launch storm read every watched app at every launch: n² readings, and n
    // points in each window).
    if let round = nextRoundAt, round > at {
      readAlone(name, at: at)
    } else if nextRoundAt == nil {
      nextRoundAt = at
    }
  }

  /// The readings due at `at`: every watched app at a round (the next round then a twelfth of the shortest watched
  /// window later, none while no app is watched, so an idle device costs nothing); between rounds, only the apps
  /// due a reading of their own.
  mutating func tick(at: Instant) -> [AppProcessRef] {
    guard let due = nextRoundAt, due <= at else { return soloReadsTick(at: at) }
    soloReadsDue = []
    soloReadsAt = nil
    var watched: [AppProcessRef] = []
    var shortest: Duration?
    for (name, entry) in watches {
      watched.append(AppProcessRef(app: name, pid: entry.pid))
      if let window = entry.watch.limits.windows.first, shortest.map({ window < $0 }) ?? true { shortest = window }
    }
    guard let shortest, !watched.isEmpty else {
      nextRoundAt = nil
      return []
    }
    watched.sort { $0.app < $1.app }
    nextRoundAt = at.advanced(by: Self.sampleInterval(shortestWindow: shortest))
    return watched
  }

  /// A twelfth of the shortest window, at most 100 times a second.
  static func sampleInterval(shortestWindow: Duration) -> Duration {
    max(shortestWindow / CPUMonitorConfig.samplesPerWindow, .milliseconds(10))
  }

  /// Takes a reading of the watched process `sample` names; false if no watch is its (an old pid, or no watch).
  mutating func add(_ sample: CPUSample, at: Instant) -> Bool {
    guard watches[sample.app]?.pid == sample.pid else { return false }
    watches[sample.app]?.watch.add(CPUWatch.Point(at: at, cpuSeconds: sample.cpuSeconds))
    return true
  }

  /// Judges app `name`'s usage over its windows against its limits, after a reading.
  mutating func judge(_ name: String, at: Instant) -> Judgement? {
    guard let watch = watches[name]?.watch else { return nil }
    func report(_ limit: CPUBudget, fatal: Bool) -> CPUUsageReport? {
      guard let usage = watch.usage(over: limit.window), usage.cpuSeconds >= limit.allowedSeconds else { return nil }
      return CPUUsageReport(
        state: watch.state, cpuSeconds: usage.cpuSeconds, windowSeconds: limit.window.seconds,
        sampledSeconds: usage.sampled.seconds, limitPercent: limit.limitPercent, fatal: fatal)
    }
    if let fatal = watch.limits.fatal {
      if let report = report(fatal, fatal: true) { return .fatal(report) }
      readBeforeFatalLimit(name, fatal, watch: watch, at: at)
    }
    guard let nonFatal = watch.limits.nonFatal else { return nil }
    guard let report = report(nonFatal, fatal: false) else {
      if watch.nonFatalReported { watches[name]?.watch.nonFatalReported = false }
      return nil
    }
    guard !watch.nonFatalReported else { return nil }
    watches[name]?.watch.nonFatalReported = true
    return .exceeded(report)
  }

  /// Reads app `name` on its own at `at`, between two rounds.
  private mutating func readAlone(_ name: String, at: Instant) {
    soloReadsDue.insert(name)
    if soloReadsAt.map({ $0 > at }) ?? true { soloReadsAt = at }
  }

  /// The apps due a reading of their own.
  private mutating func soloReadsTick(at: Instant) -> [AppProcessRef] {
    guard let readsAt = soloReadsAt, readsAt <= at else { return [] }
    let watched = soloReadsDue.sorted().compactMap { name in
      watches[name].map { AppProcessRef(app: name, pid: $0.pid) }
    }
    soloReadsDue = []
    soloReadsAt = nil
    return watched
  }

  /// An app burning towards its fatal limit is read again when, at its present rate, it would reach it, if that
  /// comes before the next round: the kill then comes close to the moment the limit is reached, not up to a
  /// twelfth of the window later. Never sooner than an eighth of a round, so that an app hovering just under the
  /// limit costs a few readings a round, not a storm.
  private mutating func readBeforeFatalLimit(_ name: String, _ limit: CPUBudget, watch: CPUWatch, at: Instant) {
    guard let round = nextRoundAt, let rate = watch.recentRate, rate > 0,
      let used = watch.usage(over: limit.window)?.cpuSeconds
    else { return }
    let interval = Self.sampleInterval(shortestWindow: watch.limits.windows.first ?? limit.window)
    let reach = Duration.seconds((limit.allowedSeconds - used) / rate)
    let readAt = at.advanced(by: max(reach, interval / 8))
    if readAt < round { readAlone(name, at: readAt) }
  }
}
