import JetsamValues

/// One app's CPU watch: the budget of its state and the samples of its CPU time inside the window.
struct CPUWatch: Sendable {
  /// One reading of the app's cumulative CPU time.
  struct Point: Sendable {
    var at: Instant
    var cpuSeconds: Double
  }

  var budget: CPUBudget
  /// `background` or `foreground`.
  var state: String
  /// Oldest first; the first may lie before the window's start (it anchors the window's first stretch).
  var points: [Point] = []
  /// When the app first went over the budget in its current run over it (the exception); nil while within it.
  var overSince: Instant?

  /// The CPU time used over the last window (interpolated at the window's start) and how much of the window the
  /// samples cover, after the newest point.
  func usage() -> (cpuSeconds: Double, sampled: Duration)? {
    guard points.count >= 2, let last = points.last else { return nil }
    let start = last.at.advanced(by: .zero - budget.window)
    let first = points[0]
    guard first.at < start else { return (last.cpuSeconds - first.cpuSeconds, last.at.duration(since: first.at)) }
    // points[1] is inside the window (older ones are trimmed): the time used before the window started is the
    // straight line between the two.
    let next = points[1]
    let fraction = start.seconds(since: first.at) / next.at.seconds(since: first.at)
    let atStart = first.cpuSeconds + (next.cpuSeconds - first.cpuSeconds) * fraction
    return (last.cpuSeconds - atStart, budget.window)
  }

  /// Adds a reading and drops those no longer needed to cover the window.
  mutating func add(_ point: Point) {
    // A counter that went backwards (a new cgroup under the same pid cannot happen; a failed read can) starts over.
    if let last = points.last, point.cpuSeconds < last.cpuSeconds || point.at <= last.at { points = [] }
    points.append(point)
    let start = point.at.advanced(by: .zero - budget.window)
    while points.count > 2 && points[1].at <= start { points.removeFirst() }
  }
}

/// The CPU monitor: which apps are watched, on what budget, and what happens when one goes over it.
///
/// The shell only reads counters when asked (`sampleCPU`, on the cadence ``nextCPUSampleAt`` sets, only while some
/// app is watched) and reports them back (`cpuSampled`); every judgement is made here.
extension JetsamPolicy {
  /// The budget that app `name` is held to in its present state and tasks, if any.
  func cpuBudget(for app: borrowing TrackedApp) -> (budget: CPUBudget, state: String)? {
    guard app.process != nil, app.requestedKill == nil else { return nil }
    switch app.state {
    case .foregroundActive, .foregroundInactive:
      return config.cpu.foreground.map { ($0, "foreground") }
    case .background:
      // A processing task while the device is idle and charging is what such tasks are for (BGProcessingTask).
      if deviceCharging && app.process?.tasks.processing.isEmpty == false { return nil }
      return config.cpu.background.map { ($0, "background") }
    case .launching, .suspended, .notRunning, .terminated:
      return nil
    }
  }

  /// Starts, changes or ends app `name`'s CPU watch to fit its state: called whenever the state, its tasks, the
  /// device's charging or the config changes. A new budget starts a new window.
  mutating func rewatchCPU(_ name: String, at: Instant) {
    // Read and changed in place, through the app's index: this runs at every state change.
    guard let index = trackedApps.index(forKey: name) else { return }
    let wanted = cpuBudget(for: trackedApps.values[index])
    let current = trackedApps.values[index].process?.cpuWatch
    if let wanted {
      guard current?.budget != wanted.budget || current?.state != wanted.state else { return }
      trackedApps.values[index].process?.cpuWatch = CPUWatch(budget: wanted.budget, state: wanted.state)
      // Its window needs an anchor. With no round under way, the first one starts now; a round already due reads it
      // anyway; otherwise this app alone is read now and the rounds keep their cadence (bringing a round forward for
      // every app that starts a watch made a launch storm read every watched app at every launch: n² readings, and n
      // points in each window).
      if let round = nextCPUSampleAt, round > at {
        cpuAnchorsDue.insert(name)
        if cpuAnchorsAt.map({ $0 > at }) ?? true { cpuAnchorsAt = at }
      } else if nextCPUSampleAt == nil {
        nextCPUSampleAt = at
      }
    } else if current != nil {
      trackedApps.values[index].process?.cpuWatch = nil
    }
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

  /// The sampling round at a tick: asks for every watched app's counter, and sets the next round (none while no
  /// app is watched, so an idle device costs nothing). Between rounds, only the apps whose watch just started are read.
  mutating func cpuSamplingTick(at: Instant) -> [PolicyAction] {
    guard let due = nextCPUSampleAt, due <= at else { return cpuAnchorsTick(at: at) }
    cpuAnchorsDue = []
    cpuAnchorsAt = nil
    var watched: [AppProcessRef] = []
    for index in trackedApps.values.indices where trackedApps.values[index].process?.cpuWatch != nil {
      if let pid = trackedApps.values[index].process?.pid {
        watched.append(AppProcessRef(app: trackedApps.values[index].name, pid: pid))
      }
    }
    guard !watched.isEmpty else {
      nextCPUSampleAt = nil
      return []
    }
    watched.sort { $0.app < $1.app }
    nextCPUSampleAt = at.advanced(by: config.cpu.sampleInterval)
    return [.sampleCPU(watched)]
  }

  /// Reads the apps whose watch started since the last round (the first point of their window).
  private mutating func cpuAnchorsTick(at: Instant) -> [PolicyAction] {
    guard let anchorsAt = cpuAnchorsAt, anchorsAt <= at else { return [] }
    let watched = cpuAnchorsDue.sorted().compactMap { name -> AppProcessRef? in
      guard let process = trackedApps[name]?.process, process.cpuWatch != nil else { return nil }
      return AppProcessRef(app: name, pid: process.pid)
    }
    cpuAnchorsDue = []
    cpuAnchorsAt = nil
    return watched.isEmpty ? [] : [.sampleCPU(watched)]
  }

  /// Readings came back: each watched app's usage over its window is judged against its budget.
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

  /// Over the budget: the first time a CPU exception (non-fatal), and once it has stayed over for the budget's
  /// `killAfter`, a `cpuResourceLimit` kill. Back within it, a later run over it is a new exception.
  private mutating func judgeCPU(_ name: String, at: Instant) -> [PolicyAction] {
    guard let process = trackedApps[name]?.process, let watch = process.cpuWatch, let usage = watch.usage() else {
      return []
    }
    guard usage.cpuSeconds > watch.budget.allowedSeconds else {
      trackedApps[name]?.process?.cpuWatch?.overSince = nil
      return []
    }
    var report = CPUUsageReport(
      state: watch.state, cpuSeconds: usage.cpuSeconds, windowSeconds: watch.budget.window.seconds,
      sampledSeconds: usage.sampled.seconds, limitPercent: watch.budget.limitPercent, overSeconds: 0)
    guard let overSince = watch.overSince else {
      trackedApps[name]?.process?.cpuWatch?.overSince = at
      return [.diagnose(app: name, pid: process.pid, .cpuException(report))]
    }
    guard let killAfter = watch.budget.killAfter, at.duration(since: overSince) >= killAfter else { return [] }
    report.overSeconds = at.seconds(since: overSince)
    return killForApp(name, .cpuLimit(report), reason: .cpuResourceLimit)
  }
}
