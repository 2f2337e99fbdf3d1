import Foundation
import JetsamCore
import JetsamValues

/// The real ``JetsamPolicy`` driven with simulated time and a synthetic population, no processes: the policy's
/// actions are answered as a device would answer them (a spawn starts after the launch time, a suspension and a
/// SIGKILL take effect at once), and memory follows what the apps hold.
public struct Simulation {
  /// One app of the population. Its name is not kept: app `n` is `app<n>` (see ``name(of:)``), so that a population
  /// of millions costs no string and no name index here (README, the jetsam-sim section). The fields go widest
  /// first, so that no padding falls between them: 40 bytes an app.
  struct SimApp {
    /// Memory while running in this launch, in MiB; what it holds now depends on the state.
    var runningMiB = 0.0
    var heldMiB = 0.0
    var launch = 0
    let kind: Int32
    var pid: Int32 = 0
    /// Its current background stint, so that the end of an old one does not suspend it.
    var stint: Int32 = 0
    /// What the policy last said of its state (kept here so that a kill's state costs no status).
    var state: LifecycleState = .notRunning
    var unsaved = false
    var killedByJetsam = false
  }

  let model: SimModel
  let seed: UInt64
  let durationNanoseconds: Int64
  var random: SimRandom
  var policy: JetsamPolicy
  var apps: [SimApp] = []
  /// Cumulative Zipf weights of the apps, for the user's and the background's picks.
  var popularity: [Double] = []
  var queue = SimEventQueue()
  var now: Int64 = 0
  var nextPid: Int32 = 100
  var heldMiB = 0.0
  /// Whether what the apps hold changed since the policy's last sample.
  var memoryChanged = true
  var residentCount = 0
  /// When the policy asked to be woken, if a tick is queued for it.
  var tickAt: Int64?
  var report: SimReport
  var secondsAtLevel: [PressureLevel: Double] = [:]
  var residentArea = 0.0
  var sampleEvery: Int64
  /// The length of the report's buckets, and each bucket's time at each level (kept by level, named at the end).
  let bucketNanoseconds: Int64
  var bucketLevels: [[PressureLevel: Double]]

  /// A simulation of `model` with `apps` apps for `duration`, drawn from `seed`.
  public init(model: SimModel, apps count: Int, duration: Duration, seed: UInt64) {
    self.model = model
    self.seed = seed
    durationNanoseconds = duration.nanoseconds
    random = SimRandom(seed: seed)
    let mib = Double(1 << 20)
    func bytes(_ fraction: Double) -> Int64 { Int64(fraction * model.ramMiB * mib) }
    var config = PolicyConfig(
      thresholds: PressureThresholds(
        warning: .init(enter: bytes(model.warning), clear: bytes(model.warning + model.hysteresis)),
        urgent: .init(enter: bytes(model.urgent), clear: bytes(model.urgent + model.hysteresis)),
        critical: .init(enter: bytes(model.critical), clear: bytes(model.critical + model.hysteresis))),
      foregroundSlots: model.foregroundSlots)
    // The simulated apps burn no CPU and are not sampled: only memory and the lifecycle are modelled.
    config.cpu = CPUMonitorConfig(background: CPUStateLimits())
    config.suspendedMemoryInterval = nil
    policy = JetsamPolicy(config: config)
    sampleEvery = max(durationNanoseconds / 288, 1_000_000_000)
    // Rounded up, so that the buckets are never more than `most`; never under a second.
    let most = Int64(SimReport.Bucket.most)
    bucketNanoseconds = max((durationNanoseconds + most - 1) / most, 1_000_000_000)
    let (length, end) = (bucketNanoseconds, durationNanoseconds)
    let bucketCount = Int(max((end + length - 1) / length, 1))
    bucketLevels = Array(repeating: [:], count: bucketCount)
    let buckets = (0..<Int64(bucketCount)).map { index in
      let start = index * length
      let end = min(start + length, end)
      return SimReport.Bucket(startSeconds: Double(start) / 1e9, seconds: Double(end - start) / 1e9)
    }
    report = SimReport(
      model: model.name, seed: seed, apps: count, durationSeconds: Double(durationNanoseconds) / 1e9, policyEvents: 0,
      refusedRequests: 0, launches: .init(), kills: .init(), secondsAtLevel: [:],
      resident: .init(min: 0, max: 0, mean: 0, timeline: []), buckets: buckets)
    populate(count)
  }

  private mutating func populate(_ count: Int) {
    let shares = model.kinds.map(\.share)
    let total = shares.reduce(0, +)
    // One settings value per kind, shared by its apps (the policy boxes each app's copy, but the command's array and
    // string are one): nothing is started, and each app's own command would cost two allocations more per app.
    let settings = model.kinds.map { kind in
      AppSettings(
        launch: LaunchSpec(command: ["/simulated/\(kind.name)"]), bandFloor: kind.bandFloor.flatMap { Band(name: $0) })
    }
    var cumulative = 0.0
    popularity.reserveCapacity(count)
    apps.reserveCapacity(count)
    for number in 0..<count {
      // Each app draws its kind by share; its popularity is its rank's Zipf weight.
      var draw = random.unit() * total
      var kind = 0
      while kind < shares.count - 1 && draw >= shares[kind] {
        draw -= shares[kind]
        kind += 1
      }
      apps.append(SimApp(kind: Int32(kind)))
      cumulative += 1 / pow(Double(number + 1), model.popularity)
      popularity.append(cumulative)
      submit(.configure(app: Self.name(of: number), settings: settings[kind], launchCount: 0))
    }
  }

  /// The name the policy knows app `number` by.
  static func name(of number: Int) -> String { "app\(number)" }

  /// The number of the app the policy calls `name`, if it is one of the population's.
  private func number(of name: String) -> Int? {
    guard name.hasPrefix("app"), let number = Int(name.dropFirst(3)), apps.indices.contains(number) else {
      return nil
    }
    return number
  }

  /// Runs the whole duration and returns the report.
  public mutating func run() -> SimReport {
    queue.schedule(.userSwitch, at: 0)
    queue.schedule(.backgroundLaunch, at: draw(mean: model.backgroundLaunchSeconds))
    queue.schedule(.residentSample, at: 0)
    sample()
    while let entry = queue.pop(), entry.time <= durationNanoseconds {
      advance(to: entry.time)
      handle(entry.kind)
      sample()
      scheduleTick()
    }
    advance(to: durationNanoseconds)
    let names: [PressureLevel: String] = [
      .normal: "normal", .warning: "warning", .urgent: "urgent", .critical: "critical",
    ]
    for (level, name) in names { report.secondsAtLevel[name] = secondsAtLevel[level] ?? 0 }
    for (index, levels) in bucketLevels.enumerated() {
      for (level, seconds) in levels { report.buckets[index].secondsAtLevel[names[level] ?? level.name] = seconds }
    }
    let duration = Double(durationNanoseconds) / 1e9
    report.resident.mean = duration > 0 ? residentArea / duration : Double(residentCount)
    // The least at a sampled instant after the start (at the start nothing runs yet).
    report.resident.min = report.resident.timeline.dropFirst().map(\.apps).min() ?? residentCount
    return report
  }

  /// A delay drawn from an exponential with mean `mean` seconds, as an instant after now.
  private mutating func draw(mean: Double) -> Int64 { now + Int64(random.exponential(mean: mean) * 1e9) }

  private mutating func advance(to time: Int64) {
    let seconds = Double(time - now) / 1e9
    let level = policy.level
    secondsAtLevel[level, default: 0] += seconds
    // The same time, cut at the buckets' edges.
    var from = now
    while from < time {
      let bucket = currentBucket(at: from)
      let end = min(Int64(bucket + 1) * bucketNanoseconds, time)
      bucketLevels[bucket][level, default: 0] += Double(end - from) / 1e9
      from = end
    }
    residentArea += Double(residentCount) * seconds
    now = time
  }

  private var instant: Instant { Instant(nanoseconds: now) }

  /// The bucket that holds `time` (the last one for the run's very end).
  private func currentBucket(at time: Int64) -> Int { min(Int(time / bucketNanoseconds), bucketLevels.count - 1) }

  /// An app by Zipf popularity.
  private mutating func pick() -> Int {
    let target = random.unit() * (popularity.last ?? 0)
    var low = 0
    var high = popularity.count - 1
    while low < high {
      let middle = (low + high) / 2
      if popularity[middle] <= target { low = middle + 1 } else { high = middle }
    }
    return low
  }

  private mutating func handle(_ kind: SimEventQueue.Kind) {
    switch kind {
    case .userSwitch:
      let app = pick()
      if !apps[app].state.isRunning {
        report.launches.coldByUser += 1
      } else if apps[app].state != .launching && apps[app].state != .foregroundActive {
        report.launches.warmReturns += 1
      }
      submit(.activate(app: Self.name(of: app), at: instant))
      queue.schedule(.userSwitch, at: draw(mean: model.switchSeconds))
    case .backgroundLaunch:
      let app = pick()
      if !apps[app].state.isRunning {
        report.launches.coldInBackground += 1
        submit(.launch(app: Self.name(of: app), foreground: false, at: instant))
      }
      queue.schedule(.backgroundLaunch, at: draw(mean: model.backgroundLaunchSeconds))
    case .spawned(let app, let launch):
      guard apps[app].launch == launch, apps[app].state == .launching else { return }
      nextPid = nextPid == Int32.max ? 100 : nextPid + 1
      apps[app].pid = nextPid
      let kind = model.kinds[Int(apps[app].kind)]
      apps[app].runningMiB = random.logNormal(median: kind.memoryMedianMiB, spread: kind.memorySpread)
      submit(.spawned(app: Self.name(of: app), pid: nextPid, at: instant))
    case .backgroundDone(let app, let stint):
      guard apps[app].stint == stint, apps[app].state == .background else { return }
      submit(.suspend(app: Self.name(of: app), at: instant))
    case .tick:
      tickAt = nil
      submit(.tick(at: instant))
    case .residentSample:
      report.resident.timeline.append(SimReport.Point(seconds: Double(now) / 1e9, apps: residentCount))
      queue.schedule(.residentSample, at: now + sampleEvery)
    }
  }

  /// Hands `event` to the policy and answers its actions, and the events those answers make, until none is left.
  private mutating func submit(_ event: PolicyEvent) {
    var pending = [event]
    var next = 0
    while next < pending.count {
      let current = pending[next]
      next += 1
      report.policyEvents += 1
      let actions: [PolicyAction]
      do {
        actions = try policy.handle(current)
      } catch {
        report.refusedRequests += 1
        continue
      }
      for action in actions { pending += answer(action) }
      // Once the device has done all it was told, the policy hears what memory is left: a victim's exit is only
      // judged on a fresh sample.
      if next == pending.count, let sample = memorySample() { pending.append(sample) }
    }
  }

  /// Tells the policy the memory available now, if it changed.
  private mutating func sample() {
    if let sample = memorySample() { submit(sample) }
  }

  /// A sample of the memory available now, if what the apps hold changed since the last one: a fresh sample even
  /// when the figure is the same (available memory stops at 0), since after a victim's exit jetsam waits for one.
  private mutating func memorySample() -> PolicyEvent? {
    guard memoryChanged else { return nil }
    memoryChanged = false
    let available = Int64(max(model.ramMiB - model.systemMiB - heldMiB, 0) * Double(1 << 20))
    return .memorySampled(available: available, at: instant)
  }

  /// Queues a tick at the policy's next deadline, unless one is queued for it already.
  private mutating func scheduleTick() {
    guard let deadline = policy.nextDeadline?.nanoseconds else { return }
    if let tickAt, tickAt <= deadline { return }
    tickAt = max(deadline, now)
    queue.schedule(.tick, at: max(deadline, now))
  }

  /// What the device does for `action`, as the events that follow at once.
  private mutating func answer(_ action: PolicyAction) -> [PolicyEvent] {
    switch action {
    case .spawn(let name, let launch, _, _):
      guard let app = number(of: name) else { return [] }
      apps[app].launch = launch
      if apps[app].killedByJetsam { report.launches.coldAfterJetsam += 1 }
      apps[app].killedByJetsam = false
      let delay = model.kinds[Int(apps[app].kind)].launchSeconds
      queue.schedule(.spawned(app: app, launch: launch), at: now + Int64(delay * 1e9))
      return []
    case .stateChanged(let name, let from, let to, _):
      guard let app = number(of: name) else { return [] }
      changeState(app, from: from, to: to)
      return []
    case .suspend(let name, _):
      return [.suspendCompleted(app: name, at: instant)]
    case .inspectLocks(let name, let pid, let stage):
      return [.locksInspected(app: name, pid: pid, locks: [], stage: stage, at: instant)]
    case .kill(let name, let pid, let reason, let decision):
      guard let app = number(of: name) else { return [] }
      report.kills.total += 1
      report.kills.byReason[reason.rawValue, default: 0] += 1
      report.buckets[currentBucket(at: now)].killsByReason[reason.rawValue, default: 0] += 1
      report.kills.byState[apps[app].state.coarseName, default: 0] += 1
      if apps[app].unsaved { report.kills.withUnsavedState += 1 }
      if decision.kill == .jetsam { apps[app].killedByJetsam = true }
      let end = ProcessEnd.signaled(signal: Signal.kill.rawValue, dumpedCore: false)
      return [.exited(app: name, pid: pid, end: end, oomKilled: false, at: instant)]
    case .recordExit(let record):
      // The record is "written" at once.
      return [.exitRecorded(record)]
    case .terminate(let name, let pid):
      let end = ProcessEnd.signaled(signal: Signal.terminate.rawValue, dumpedCore: false)
      return [.exited(app: name, pid: pid, end: end, oomKilled: false, at: instant)]
    // A simulated app's stops and continuations take no time; it has no caps, signals, sockets, hooks or commands,
    // and speaks no protocol: nothing follows.
    case .resume, .suspendIncomplete, .setLimits, .signal, .defunctSockets, .runHook, .runCommand, .deliver, .reply,
      .appError, .forget:
      return []
    // The monitors that ask for readings (CPU, suspended memory) are off in the simulation's policy (its config, in
    // `init`), no simulated app writes, signposts or is traced, and diagnostics have nothing to look at.
    case .sampleCPU, .sampleDiskWrites, .sampleSuspendedMemory, .readSignpostCounters, .checkTracer, .diagnose:
      return []
    // Actions that only tell: the report counts what it needs from the other actions.
    case .levelChanged, .restorationJudged, .resumptionJudged, .suspensionDeferred, .socketsDefuncted, .watchdogHeld,
      .signposted, .acknowledged:
      return []
    }
  }

  /// Follows a state change the policy made: the memory the app holds, cold launches, unsaved state, the background
  /// work that ends in a suspension.
  private mutating func changeState(_ app: Int, from: LifecycleState, to: LifecycleState) {
    let kind = model.kinds[Int(apps[app].kind)]
    apps[app].state = to
    let held: Double
    switch to {
    case .suspended: held = apps[app].runningMiB * kind.suspendedFraction
    case .background, .foregroundActive, .foregroundInactive: held = apps[app].runningMiB
    case .launching, .notRunning, .terminated: held = 0
    }
    // Resident: holding memory, from the spawn to the exit.
    let wasResident = from.isRunning && from != .launching
    let isResident = to.isRunning && to != .launching
    if wasResident != isResident { residentCount += isResident ? 1 : -1 }
    report.resident.max = max(report.resident.max, residentCount)
    if held != apps[app].heldMiB { memoryChanged = true }
    heldMiB += held - apps[app].heldMiB
    apps[app].heldMiB = held
    if to == .foregroundActive { apps[app].unsaved = false }
    if to == .background {
      apps[app].stint += 1
      if from == .foregroundInactive || from == .foregroundActive {
        apps[app].unsaved = random.unit() < kind.unsavedChance
      }
      queue.schedule(.backgroundDone(app: app, stint: apps[app].stint), at: draw(mean: kind.backgroundSeconds))
    }
    if !to.isRunning {
      apps[app].unsaved = false
      apps[app].runningMiB = 0
    }
  }
}
