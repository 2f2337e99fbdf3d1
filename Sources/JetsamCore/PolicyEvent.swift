import JetsamValues

/// Everything that can happen to the policy: requests from users, results of the shell's I/O, kernel
/// observations, and the passing of time. Each carries the instant it happened.
///
/// The cases with large payloads are `indirect`, so that every event is not as large as the largest.
public enum PolicyEvent: Sendable, Equatable {
  // MARK: Requests (may be refused with a PolicyError; the state is then unchanged)

  /// Declares or updates an app: its settings (launch spec, band lift, how its lifecycle events are acknowledged,
  /// hooks, locked-file rule) and, after a daemon restart, how many launches it already had (the policy never counts
  /// below the last recorded exit's launch). A running app gets its new caps at once (``PolicyAction/setLimits``)
  /// and the rest at its next launch.
  indirect case configure(app: String, settings: AppSettings, launchCount: Int)
  /// Cold-start an app that is not running. With `foreground` it takes a foreground slot (the oldest
  /// foreground app moves to the background if the slots are full); otherwise it launches into the background.
  case launch(app: String, foreground: Bool, at: Instant)
  /// Bring a running app to the foreground (resuming it if suspended), or cold-start it if not running.
  case activate(app: String, at: Instant)
  /// Move a foreground app to the background.
  case moveToBackground(app: String, at: Instant)
  /// Suspend a background (or foreground, via background) app.
  case suspend(app: String, at: Instant)
  /// Resume a suspended app into the background.
  case resume(app: String, at: Instant)
  /// Kill an app now and record the exit with `reason` (a user reproducing an exit on demand).
  case kill(app: String, reason: ExitReason, at: Instant)
  /// End an app gracefully: SIGTERM, then SIGKILL when `PolicyConfig.terminateGrace` runs out.
  case terminate(app: String, at: Instant)
  /// Force a pressure level regardless of measurements (`nil` returns to measured levels).
  case forceLevel(PressureLevel?, at: Instant)
  /// The emulated device is idle and charging (or no longer): `processing` background tasks are exempt from the
  /// background budget and the CPU monitor while it is.
  case setCharging(Bool, at: Instant)
  /// Replace the tunables (a config reload); they apply from the next event (deadlines already set keep
  /// their time).
  indirect case reconfigure(PolicyConfig)

  /// Takes over an app that kept running while jetsamd restarted, with what the previous daemon knew
  /// (its state, band times and launch number: the status it saved) and what the new one saw of its processes
  /// (``AppStatus/observedStopped``); it speaks no protocol until it says hello again. An app without a pid or a
  /// spawn time has no process to take over, and is ignored.
  indirect case adopt(app: AppStatus, at: Instant)

  // MARK: Results of the shell's actions

  /// The process for the app's pending launch runs (inside its cgroup) with this pid.
  case spawned(app: String, pid: Int32, at: Instant)
  /// The launch failed before the app ran; nothing ran outside the cgroup.
  case spawnFailed(app: String, message: String, at: Instant)
  /// What `inspectLocks` found: the file locks the app's processes hold (empty: none), at `stage`.
  case locksInspected(app: String, pid: Int32, locks: [HeldLock], stage: LockCheckStage, at: Instant)
  /// The last process of a suspending app has stopped, at `at`: suspended time counts from here. `locks` are the
  /// file locks its processes hold as seen then (empty: none), so that a stop costs one event, not a lock check's
  /// round trip as well.
  case suspendCompleted(app: String, locks: [HeldLock] = [], at: Instant)
  /// What `defunctSockets` did: the sockets of the app's processes it destroyed (empty: none), and what kept it from
  /// destroying some or all of them (nil: nothing), at `at`.
  case socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?, at: Instant)
  /// Something other than jetsamd continued (SIGCONT) the stopped main process `pid` of a suspended app, seen at
  /// `at`: the app runs although it counts as suspended.
  case continuedWhileSuspended(app: String, pid: Int32, at: Instant)
  /// The SIGKILL of a `kill` action went out at `at`; `memory` is what each app of the kill's snapshot (or
  /// the victim alone) had charged at that moment, by name.
  case killSignalled(app: String, pid: Int32, at: Instant, memory: [String: Int64])
  /// A `recordExit` record is durable, as written (with the shell's measurements and wall-clock time). At
  /// start-up the shell also feeds each app's last record from the log, so launch reasons survive restarts.
  indirect case exitRecorded(ExitRecord)
  /// The command hook run for event `event` of the app has ended (or could not start): the event is answered.
  case hookEnded(app: String, pid: Int32, event: Int, at: Instant)
  /// A `runCommand` run of one of the app's commands ended: `succeeded` when `ready` exited 0, or when a digest run
  /// printed a digest (reported just before, as the app's `stateDigest` message); false when it failed, timed out
  /// or could not start.
  case commandEnded(app: String, pid: Int32, run: AppCommandRun, succeeded: Bool, at: Instant)
  /// A command run for the app's launch (a hook, or one of its commands) ended, as observed: reported before its
  /// `hookEnded` or `commandEnded`, so that the exit record keeps it (``CommandRunRecord``).
  case commandRunObserved(app: String, pid: Int32, run: CommandRunRecord, at: Instant)

  // MARK: Kernel observations

  /// A fresh reading of the memory available to the device.
  case memorySampled(available: Int64, at: Instant)
  /// Jetsam's crash handler in one of the app's processes reports a fatal signal and waits for its stacks to be taken.
  case crashReported(app: String, pid: Int32, crash: CrashReport, at: Instant)
  /// The CPU time of the apps a `sampleCPU` action named, read at `at` (an app whose counter could not be read
  /// is left out).
  case cpuSampled([CPUSample], at: Instant)
  /// The answer to `checkTracer`: the pid of the tracer attached to the app's main process `pid`, nil if none (or
  /// the process is gone).
  case tracerChecked(app: String, pid: Int32, tracer: Int32?, at: Instant)
  /// The bytes written by the apps a `sampleDiskWrites` action named, read at `at` (an app whose counter could not
  /// be read is left out).
  case diskWritesSampled([DiskWriteSample], at: Instant)
  /// The answer to `readSignpostCounters` `reading`: the app's counters, nil if they could not be read (or the
  /// process is gone).
  case signpostCountersRead(app: String, pid: Int32, reading: Int, counters: SignpostCounters?, at: Instant)
  /// The memory of the suspended apps a `sampleSuspendedMemory` action named, read at `at` (an app whose counter
  /// could not be read is left out).
  case suspendedMemorySampled([SuspendedMemorySample], at: Instant)
  /// The app's main process ended and its cgroup is empty. `oomKilled` is true when the kernel's OOM
  /// killer acted in the app's own cgroup (its `oom_kill` counter rose).
  case exited(app: String, pid: Int32, end: ProcessEnd, oomKilled: Bool, at: Instant)

  /// A message from the app's own channel (or from the shell on its behalf, for hooks). `pid` names the
  /// process whose channel it came from: a message from an earlier launch is ignored.
  case appMessage(app: String, pid: Int32, message: AppMessage, at: Instant)

  // MARK: Time

  /// The instant `JetsamPolicy.nextDeadline` named (or later) has come.
  case tick(at: Instant)
}

extension PolicyEvent {
  /// When the event happened (every event but `configure` carries its instant).
  public var instant: Instant? {
    switch self {
    case .configure, .exitRecorded, .reconfigure: nil
    case .launch(_, _, let at), .activate(_, let at), .moveToBackground(_, let at), .suspend(_, let at),
      .resume(_, let at), .kill(_, _, let at), .terminate(_, let at), .forceLevel(_, let at), .setCharging(_, let at),
      .cpuSampled(_, let at), .tracerChecked(_, _, _, let at), .diskWritesSampled(_, let at),
      .signpostCountersRead(_, _, _, _, let at),
      .suspendedMemorySampled(_, let at),
      .crashReported(_, _, _, let at), .spawned(_, _, let at),
      .spawnFailed(_, _, let at), .suspendCompleted(_, _, let at), .locksInspected(_, _, _, _, let at),
      .continuedWhileSuspended(_, _, let at), .socketsDefuncted(_, _, _, _, let at),
      .memorySampled(_, let at),
      .killSignalled(_, _, let at, _), .hookEnded(_, _, _, let at), .commandEnded(_, _, _, _, let at),
      .commandRunObserved(_, _, _, let at),
      .exited(_, _, _, _, let at), .appMessage(_, _, _, let at), .adopt(_, let at), .tick(let at):
      at
    }
  }
}
