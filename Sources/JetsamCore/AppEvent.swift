import JetsamWire

/// The lifecycle events an app receives on its channel (UIApplication's delegate calls): the protocol's event
/// names, shared with the clients through JetsamWire.
public typealias AppEventKind = AppEventName

extension AppEventKind {
  /// The event an app is told about when it moves between these states, if any (suspension sends nothing).
  static func forTransition(from: LifecycleState, to: LifecycleState) -> [AppEventKind] {
    switch (from, to) {
    case (.launching, .foregroundActive): [.didFinishLaunching, .didBecomeActive]
    case (.launching, .background): [.didFinishLaunching]
    case (.foregroundActive, .foregroundInactive): [.willResignActive]
    case (.foregroundInactive, .background): [.didEnterBackground]
    case (.background, .foregroundInactive): [.willEnterForeground]
    case (.foregroundInactive, .foregroundActive): [.didBecomeActive]
    default: []
    }
  }
}

/// One event sent to an app.
public struct AppEvent: Sendable, Equatable {
  /// Counts up from 1 within a launch; the app acknowledges by this id.
  public var id: Int
  public var kind: AppEventKind
  /// `memoryWarning`: the level that was reached.
  public var level: PressureLevel?
  /// `backgroundTaskWillExpire`: the task and its name.
  public var task: Int?
  public var taskName: String?
  /// `didFinishLaunching`: whether the launch goes to the foreground.
  public var launchesToForeground: Bool?
  /// `didFinishLaunching`: the app's previous exit (nil: a fresh launch).
  public var previousExit: PreviousExit?
  /// `willEnterForeground`, and the `didBecomeActive` that follows it: how long the app was away from the
  /// foreground, and how much of that it spent suspended (its timers did not run then).
  public var backgroundFor: Duration?
  public var suspendedFor: Duration?

  public init(
    id: Int, kind: AppEventKind, level: PressureLevel? = nil, task: Int? = nil, taskName: String? = nil,
    launchesToForeground: Bool? = nil
  ) {
    self.id = id
    self.kind = kind
    self.level = level
    self.task = task
    self.taskName = taskName
    self.launchesToForeground = launchesToForeground
  }
}

/// What an app (or the shell on its behalf) tells the policy through its channel.
public enum AppMessage: Sendable, Equatable {
  /// The app speaks the protocol: acknowledgements are expected from now on.
  case hello
  /// The handler of event `event` returned.
  case acknowledge(event: Int)
  /// Ask for background time; answered with a `reply` carrying the task id.
  case beginBackgroundTask(requestID: Int, name: String, kind: BackgroundTaskKind = .finishing)
  /// The task is done.
  case endBackgroundTask(task: Int, requestID: Int?)
  /// How long background tasks may still run; answered with a `reply` carrying seconds.
  case backgroundTimeRemaining(requestID: Int)
  /// The app's state summary (at most ``AppMessage/maxSummaryBytes``; empty clears it), handed back at its
  /// next launch.
  case stateSummary(String, requestID: Int?)
  /// The digest of the state the app saved (and how long that state stays current, if it says), restored
  /// after a relaunch, or showed on its return to the foreground.
  case stateDigest(phase: DigestPhase, value: String, validFor: Duration?, requestID: Int?)
  /// A point or the bounds of an interval in the app's own work (like MetricKit's `mxSignpost`): recorded with its
  /// time for labs' timelines, decides nothing.
  case signpost(name: String, phase: SignpostPhase, requestID: Int?)

  /// The longest `validFor` an app may give: a year (longer means "forever", which is no `validFor` at all).
  public static let maxValidFor = Duration.seconds(366 * 24 * 3600)

  /// The longest state summary, in UTF-8 bytes.
  public static let maxSummaryBytes = 128

  /// The longest signpost name, in UTF-8 bytes.
  public static let maxSignpostNameBytes = 128
}

/// What a background task is for, as iOS tells them apart.
public enum BackgroundTaskKind: String, Sendable, Equatable, CaseIterable {
  /// Time to finish work the user started (`beginBackgroundTask`): bound by the background budget and the CPU
  /// monitor.
  case finishing
  /// Deferrable heavy work (like `BGProcessingTask`): while the device is idle and charging it is bound by neither
  /// the background budget nor the CPU monitor; otherwise it is a `finishing` task.
  case processing
}

/// The deadlines and budgets of the app side, already multiplied by the config's time scale.
public struct LifecycleTimings: Sendable, Equatable {
  /// didFinishLaunching.
  public var launch: Duration
  /// willEnterForeground, didBecomeActive, willResignActive.
  public var foregroundTransition: Duration
  /// didEnterBackground.
  public var background: Duration
  /// willTerminate (then SIGTERM follows whether or not it was acknowledged).
  public var terminate: Duration
  /// Background time an app with open tasks gets from entering the background.
  public var backgroundTaskBudget: Duration
  /// backgroundTaskWillExpire is sent this long before the budget runs out.
  public var expirationWarning: Duration
  /// Open tasks are killed this long after the budget ran out.
  public var expirationGrace: Duration

  public init(
    launch: Duration = .seconds(20), foregroundTransition: Duration = .seconds(10), background: Duration = .seconds(5),
    terminate: Duration = .seconds(5), backgroundTaskBudget: Duration = .seconds(30),
    expirationWarning: Duration = .seconds(5), expirationGrace: Duration = .seconds(1)
  ) {
    self.launch = launch
    self.foregroundTransition = foregroundTransition
    self.background = background
    self.terminate = terminate
    self.backgroundTaskBudget = backgroundTaskBudget
    self.expirationWarning = expirationWarning
    self.expirationGrace = expirationGrace
  }

  /// The acknowledgement deadline of an event kind.
  public func deadline(for kind: AppEventKind) -> Duration {
    switch kind {
    case .didFinishLaunching: launch
    case .didEnterBackground: background
    case .willTerminate: terminate
    default: foregroundTransition
    }
  }

  /// Every duration multiplied by `scale` (labs and tests run the same rules faster).
  public func scaled(by scale: Double) -> LifecycleTimings {
    func s(_ d: Duration) -> Duration { d.scaled(by: scale) }
    return LifecycleTimings(
      launch: s(launch), foregroundTransition: s(foregroundTransition), background: s(background),
      terminate: s(terminate), backgroundTaskBudget: s(backgroundTaskBudget),
      expirationWarning: s(expirationWarning), expirationGrace: s(expirationGrace))
  }
}
