/// What one launch measured of itself from its lifecycle events (MetricKit's launch, responsiveness and time
/// metrics): kept on the running process, saved with it in the state file, and written in its exit record.
///
/// Launch and resume times need acknowledgements: an app that does not speak the protocol has none, so they are
/// absent (never zero).
public struct LaunchMetrics: Codable, Hashable, Sendable {
  /// The reason of the exit this launch followed (a cold launch after a jetsam kill is `memoryPressure`); nil for
  /// a fresh launch (no exit known before it).
  public var afterExit: ExitReason?
  /// Seconds from the spawn to the acknowledgement of the launch's first `didBecomeActive` (a launch into the
  /// foreground only); nil until then, and for an app that does not acknowledge.
  public var timeToFirstDrawSeconds: Double?
  /// Each return from the background: from the delivery of `willEnterForeground` to the acknowledgement of the
  /// `didBecomeActive` that follows.
  public var resumeTimes = DurationHistogram()
  /// Each lifecycle handler that took ``hangThresholdSeconds`` or more, from when it could start to its
  /// acknowledgement, and each watchdog kill's hang.
  public var hangTimes = DurationHistogram()
  /// Seconds in the foreground (active or inactive), in the background (running), and of those in the background
  /// with the `audio` band lift, up to the last state change (the current stint is added by
  /// ``JetsamPolicy/launchMetrics(of:at:)``).
  public var foregroundSeconds = 0.0
  public var backgroundSeconds = 0.0
  public var backgroundAudioSeconds = 0.0
  /// Each signpost name's count, interval durations and costs (at most ``maxSignpostNames`` names).
  public var signposts: [String: SignpostFigures] = [:]
  /// The time-weighted average of the app's memory while suspended (the current suspension's last reading is added
  /// up to now by ``JetsamPolicy/launchMetrics(of:at:)``).
  public var suspendedMemory = SuspendedMemoryAverage()
  /// Bytes the launch wrote to storage, as of the disk-write monitor's latest reading (each round, and at each
  /// suspension; at the exit the shell's own reading where the cgroup has `io.stat`); nil without a reading (the
  /// monitor off for the app, or none taken yet).
  public var bytesWritten: Int64?

  /// iOS counts a hang from 250 ms of an unresponsive main thread.
  public static let hangThresholdSeconds = 0.25
  /// The distinct signpost names kept per launch (and per app in a payload): a name beyond them is not counted, so
  /// that an app naming each interval afresh costs bounded memory and state-file bytes.
  public static let maxSignpostNames = 32

  public init(afterExit: ExitReason? = nil) {
    self.afterExit = afterExit
  }

  /// Adds `seconds` spent in `state` (with `audio` for the background with the audio band lift); other states
  /// (launching, suspended) count in none.
  mutating func addTime(_ seconds: Double, in state: LifecycleState, audio: Bool) {
    guard seconds > 0 else { return }
    switch state {
    case .foregroundActive, .foregroundInactive: foregroundSeconds += seconds
    case .background:
      backgroundSeconds += seconds
      if audio { backgroundAudioSeconds += seconds }
    case .notRunning, .launching, .suspended, .terminated: break
    }
  }

  /// Counts a handler's time if it is a hang.
  mutating func noteHandler(seconds: Double) {
    if seconds >= Self.hangThresholdSeconds { hangTimes.count(seconds: seconds) }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    afterExit = try container.decodeIfPresent(ExitReason.self, forKey: .afterExit)
    timeToFirstDrawSeconds = try container.decodeIfPresent(Double.self, forKey: .timeToFirstDrawSeconds)
    resumeTimes = try container.decodeIfPresent(DurationHistogram.self, forKey: .resumeTimes) ?? DurationHistogram()
    hangTimes = try container.decodeIfPresent(DurationHistogram.self, forKey: .hangTimes) ?? DurationHistogram()
    foregroundSeconds = try container.decodeIfPresent(Double.self, forKey: .foregroundSeconds) ?? 0
    backgroundSeconds = try container.decodeIfPresent(Double.self, forKey: .backgroundSeconds) ?? 0
    backgroundAudioSeconds = try container.decodeIfPresent(Double.self, forKey: .backgroundAudioSeconds) ?? 0
    signposts = try container.decodeIfPresent([String: SignpostFigures].self, forKey: .signposts) ?? [:]
    suspendedMemory =
      try container.decodeIfPresent(SuspendedMemoryAverage.self, forKey: .suspendedMemory) ?? SuspendedMemoryAverage()
    bytesWritten = try container.decodeIfPresent(Int64.self, forKey: .bytesWritten)
  }
}
