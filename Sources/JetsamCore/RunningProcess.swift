import JetsamValues

/// An app's current process and everything the policy knows about it: it exists from the spawn (or the adoption)
/// to the exit, so that the process's facts are never optional while it runs and are all forgotten with it.
struct RunningProcess: Sendable {
  let pid: Int32
  let spawnedAt: Instant

  /// When the current background stint's grace runs out and the app is suspended.
  var graceDeadline: Instant?
  /// The kill we asked for, with the pressure when it was decided; it also keeps jetsam from choosing the app
  /// (again).
  var killInFlight: KillInFlight?
  /// When our SIGKILL went out, and the memory the app had charged then.
  var killSignalledAt: Instant?
  var memoryAtKill: Int64?
  /// For an app jetsam suspended on its way to a kill (iOS's escalation): how long it had run in the background.
  var backgroundSecondsBeforePressureSuspension: Double?
  /// Whether we sent SIGTERM to this process.
  var sentTerminate = false
  /// When an unanswered SIGTERM escalates to SIGKILL.
  var terminateDeadline: Instant?
  /// The lock check the app waits for on its own: before its processes stop (`defer`), or after a suspend timeout.
  var lockCheck: LockCheckStage?
  /// When a pending suspension counts as incomplete (its processes have not all stopped by then).
  var suspendDeadline: Instant?
  /// The suspend timed out and the processes have not all stopped since.
  var suspendIncomplete = false
  /// How many times another process continued it while suspended (this launch).
  var continuedByOthers = 0
  /// The processes of this launch whose crash was diagnosed (each at most once).
  var crashesDiagnosed: Set<Int32> = []
  /// What this launch saved and restored.
  var restoration: StateRestoration
  /// The current stay away from the foreground (for the return's events); nil while the app is in it.
  var away: AwayStint?
  /// The lifecycle events sent and their acknowledgements.
  var channel = AppChannelBook()
  /// Where the app's commands (``AppCommands``) stand.
  var commands = CommandRuns()
  /// The open background tasks.
  var tasks = BackgroundTasks()
  /// The current stay in the background; nil outside it.
  var backgroundStint: BackgroundStint?
  /// What this launch measured of itself (launch and resume times, hangs, time in each state), and the
  /// measurements under way.
  var metrics = LaunchMetrics()
  var timers = LaunchTimers()

  init(pid: Int32, spawnedAt: Instant, previousDigest: String?) {
    self.pid = pid
    self.spawnedAt = spawnedAt
    self.restoration = StateRestoration(previousDigest: previousDigest)
  }

  /// The kill we asked for, if any.
  var requestedKill: RequestedKill? { killInFlight?.kill }

  /// Whether the app is in the middle of something the background grace must not cut short.
  var isBusy: Bool { !tasks.open.isEmpty || channel.awaitsWatchedHandler }
}
