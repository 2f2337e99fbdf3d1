import JetsamCore
import JetsamProtocol
import JetsamValues
import JetsamWire

/// What `watch` clients are pushed (PROTOCOL-CONTROL.md, *Watching*): the policy's actions as changes the moment
/// they are carried out, exit records once durable, and the memory of every running app at each watcher's
/// interval. It decides nothing and reads nothing while nobody watches. Its watchers are its `Audience`'s (the
/// control server's connections in the daemon).
final class LiveFeed<Audience: LiveAudience> {
  /// Reads what a change needs from the daemon: the launch of a running app, and memory.
  struct Sources {
    /// The launch counter and the pid (while running) of an app the policy knows.
    var app: (String) -> (launch: Int, pid: Int32?)?
    /// Bytes charged to each running app's cgroup, by app.
    var appMemory: () -> [String: Int64]
    /// The device's available memory as last sampled.
    var availableBytes: () -> Int64
  }

  private let loop: any LoopScheduling
  private let control: Audience
  private let sources: Sources
  private var memoryTimer: (any LoopSource)!

  init(loop: any LoopScheduling, control: Audience, sources: Sources) throws {
    self.loop = loop
    self.control = control
    self.sources = sources
    memoryTimer = try loop.addTimer(at: nil) { [unowned self] in self.sampleMemory() }
  }

  /// Subscribes `connection` (its `watch` request is answered with a snapshot first); its first memory sample
  /// comes one interval later.
  func watch(_ connection: Audience.Watcher, interval: Duration) {
    connection.watch = WatchSubscription(interval: interval, nextSample: loop.now().advanced(by: interval))
    scheduleMemory()
  }

  /// Pushes what `action` changed, if anyone watches and watchers care about it.
  func publish(_ action: PolicyAction) {
    guard control.hasWatchers, let change = change(for: action, at: loop.now()) else { return }
    control.publish(change)
  }

  /// Pushes a durable exit record.
  func publish(_ record: ExitRecord) {
    guard control.hasWatchers else { return }
    var change = LiveChange(.exit, at: loop.now().nanoseconds)
    change.app = record.app
    change.pid = record.pid
    change.launch = record.launch
    change.record = record
    control.publish(change)
  }

  /// Pushes a switch of the device's conditions.
  func publishDevice(charging: Bool) {
    guard control.hasWatchers else { return }
    var change = LiveChange(.device, at: loop.now().nanoseconds)
    change.charging = charging
    control.publish(change)
  }

  private func change(for action: PolicyAction, at now: Instant) -> LiveChange? {
    func about(_ kind: LiveChange.Kind, app: String, pid: Int32?) -> LiveChange {
      var change = LiveChange(kind, at: now.nanoseconds)
      change.app = app
      let known = sources.app(app)
      change.pid = pid ?? known?.pid
      change.launch = known?.launch
      return change
    }
    var change: LiveChange
    switch action {
    case .stateChanged(let app, let from, let to, let band):
      change = about(.state, app: app, pid: nil)
      change.from = from
      change.to = to
      change.band = band
    case .levelChanged(let from, let to, let available):
      change = LiveChange(.pressure, at: now.nanoseconds)
      change.previousLevel = from
      change.level = to
      change.availableBytes = available
    case .kill(let app, let pid, let reason, _):
      change = about(.kill, app: app, pid: pid)
      change.reason = reason
    case .deliver(let app, let pid, let event):
      change = about(.appEvent, app: app, pid: pid)
      change.name = event.kind.rawValue
      if event.kind == .memoryWarning { change.level = event.level ?? .warning }
    case .signposted(let app, let pid, let launch, let name, let phase):
      change = about(.signpost, app: app, pid: pid)
      change.launch = launch
      change.name = name
      change.phase = phase
    case .acknowledged(let app, let pid, let event):
      change = about(.acknowledgement, app: app, pid: pid)
      change.name = event.rawValue
    case .diagnose(let app, let pid, let request):
      change = about(.diagnostic, app: app, pid: pid)
      change.name =
        switch request {
        case .hang: "hang"
        case .cpuException: "cpuException"
        case .diskWriteException: "diskWriteException"
        case .crash: "crash"
        }
    case .watchdogHeld(let app, let pid, let event, let tracer):
      change = about(.watchdogHeld, app: app, pid: pid)
      change.name = event.rawValue
      change.tracerPid = tracer
    case .socketsDefuncted(let app, let pid, let sockets, let problem):
      change = about(.sockets, app: app, pid: pid)
      change.sockets = sockets
      change.problem = problem
    case .restorationJudged(let app, let launch, let verdict, _, _):
      change = about(.verdict, app: app, pid: nil)
      change.launch = launch
      change.name = "restoration"
      change.verdict = verdict.rawValue
    case .resumptionJudged(let app, let launch, let judgement):
      change = about(.verdict, app: app, pid: nil)
      change.launch = launch
      change.name = "resumption"
      change.verdict = judgement.verdict.rawValue
    default:
      return nil
    }
    return change
  }

  /// Sends a memory sample to each watcher whose interval has passed, then waits for the next one due.
  private func sampleMemory() {
    let now = loop.now()
    let due = control.watchers.filter { $0.watch.map { $0.nextSample <= now } ?? false }
    for connection in due {
      guard var watch = connection.watch else { continue }
      // Never bunched up after a stall: the next sample is an interval from now.
      watch.nextSample = max(watch.nextSample.advanced(by: watch.interval), now.advanced(by: watch.interval / 2))
      connection.watch = watch
    }
    if !due.isEmpty {
      var sample = LiveChange(.memory, at: now.nanoseconds)
      sample.availableBytes = sources.availableBytes()
      sample.memory = sources.appMemory()
      // Encoded once for all; sending may drop a watcher past the output budget (it is then sent nothing more).
      control.send(.change(sample), to: due)
    }
    scheduleMemory()
  }

  private func scheduleMemory() {
    memoryTimer.schedule(at: control.watchers.compactMap { $0.watch?.nextSample }.min())
  }
}

/// A `watch` client's memory samples: how often, and when the next is due.
struct WatchSubscription {
  var interval: Duration
  var nextSample: Instant
}

extension ControlResponse {
  /// A streamed line of `watch`.
  static func change(_ change: LiveChange) -> ControlResponse {
    var response = ControlResponse(ok: true)
    response.event = "change"
    response.change = change
    return response
  }
}
