import JetsamValues
import JetsamWire

/// What the policy decides the shell must do, in order.
///
/// The cases with large payloads are `indirect`, so that every action is not as large as the largest (a batch of
/// 1,000 suspends moves thousands of actions through arrays).
public enum PolicyAction: Sendable, Equatable {
  /// Start the app's process in its cgroup as `spec` says; answer with `spawned` or `spawnFailed`. `previousExit`
  /// is what the launch is told of the app's last exit (nil: a fresh launch).
  indirect case spawn(app: String, launch: Int, previousExit: PreviousExit? = nil, spec: LaunchSpec)
  /// Write new caps to the running app's cgroup (a config reload; the rest of its new settings wait for its next
  /// launch).
  case setLimits(app: String, pid: Int32, AppLimits)
  /// Stop every process of the app (SIGSTOP or freezer); answer with `suspendCompleted` once every process
  /// is seen stopped. Until then the shell keeps watching; the policy's suspend timeout decides what an
  /// app that does not stop in time counts as (``suspendIncomplete(app:pid:)``).
  case suspend(app: String, pid: Int32)
  /// The app's processes did not all stop within the suspend timeout: it counts as suspended from the
  /// request (first in line for jetsam, as any suspended app), marked incomplete until they do stop.
  case suspendIncomplete(app: String, pid: Int32)
  /// Continue every process of the app.
  case resume(app: String, pid: Int32)
  /// Kill the app's whole cgroup now, then answer with `killSignalled` (the instant and the memory of the
  /// victim and of every app in the decision's snapshot, which is set for jetsam (pressure) kills). The decision is
  /// made durable before the signal goes out: a successor records the victim for it even if this daemon dies first.
  indirect case kill(app: String, pid: Int32, reason: ExitReason, decision: KillInFlight)
  /// Ask the app to end (SIGTERM to its main process).
  case terminate(app: String, pid: Int32)
  /// The app moved to a new state and band (the shell follows with oom_score_adj, notifications).
  case stateChanged(app: String, from: LifecycleState, to: LifecycleState, band: Band)
  /// The device's pressure level changed.
  case levelChanged(from: PressureLevel, to: PressureLevel, available: Int64)
  /// Write this exit record durably (after filling in the measured fields), then report it.
  indirect case recordExit(ExitRecord)
  /// A launch's restoration was judged (journal and log; the verdict is also kept in that launch's exit record).
  case restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?,
    restoredDigest: String?)
  /// A return to the foreground was judged (journal and log; also kept in that launch's exit record).
  case resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement)
  /// The ended ad-hoc app is no longer remembered (``PolicyConfig/rememberedEndedApps``): drop what is kept of it.
  case forget(app: String)
  /// Send a lifecycle event on the app's channel.
  indirect case deliver(app: String, pid: Int32, event: AppEvent)
  /// List the file locks the app's processes hold (POSIX, flock and OFD) and answer with `locksInspected`.
  case inspectLocks(app: String, pid: Int32, stage: LockCheckStage)
  /// A suspension was put off because the app holds file locks (the `defer` rule): it stays in the background and
  /// is tried again at `retryAt`'s grace (log, journal).
  case suspensionDeferred(app: String, pid: Int32, locks: [HeldLock])
  /// Destroy the network sockets (TCP and UDP, IPv4 and IPv6) of every process of the suspended app, off the loop,
  /// and answer with `socketsDefuncted`. Unix sockets, and any socket jetsamd itself holds too, are left alone.
  case defunctSockets(app: String, pid: Int32)
  /// The app's sockets were defuncted at its suspension (or could not be: `problem`): log, journal, watch stream.
  case socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?)
  /// Read the CPU time of each of these apps' cgroups and answer with one `cpuSampled`.
  case sampleCPU([AppProcessRef])
  /// Find out whether a tracer (a debugger, `strace -p`) is attached to the app's main process (its `TracerPid`),
  /// and report it (`tracerChecked`): a watchdog deadline came, and under a debugger the watchdog holds.
  case checkTracer(app: String, pid: Int32)
  /// A watchdog is held because a debugger is attached (`tracer`, its pid), or runs again from now because it has
  /// gone (`tracer` nil): for the journal, the log and the watch stream.
  case watchdogHeld(app: String, pid: Int32, event: AppEventKind, tracer: Int32?)
  /// Read the bytes each of these apps has written since its launch and answer with one `diskWritesSampled`.
  case sampleDiskWrites([AppProcessRef])
  /// Read the app's cgroup counters (CPU time, memory, bytes written) for a signpost interval's begin or end, and
  /// answer with one `signpostCountersRead` naming `reading`.
  case readSignpostCounters(app: String, pid: Int32, reading: Int)
  /// Read the memory charged to each of these suspended apps' cgroups and answer with one `suspendedMemorySampled`.
  case sampleSuspendedMemory([AppProcessRef])
  /// Take a diagnostic of the app's process now (its call stacks, kept durably). A `kill` of the same process that
  /// follows waits for the capture (within its time budget), so that a hang's stacks show where it hung.
  case diagnose(app: String, pid: Int32, DiagnosticRequest)
  /// The app passed a signpost (publish it with the time it was handled; it changes nothing).
  case signposted(app: String, pid: Int32, launch: Int, name: String, phase: SignpostPhase)
  /// The app acknowledged lifecycle event `event` (its handler returned, or its command hook ended; in time or
  /// late): publish it, so that a watcher sees the handler end; it changes nothing.
  case acknowledged(app: String, pid: Int32, event: AppEventKind)
  /// Send `signal` to every process of the app (a signal hook).
  case signal(app: String, pid: Int32, signal: Signal)
  /// Run `command`, the app's hook for `event`, in its cgroup from `workingDirectory` (nil: the shell's default);
  /// answer with `hookEnded` when it ends.
  indirect case runHook(app: String, pid: Int32, event: AppEvent, command: [String], workingDirectory: String?)
  /// Run `command`, the app's command for `run` (``AppCommands``), as its hooks run, killing it after `timeout`;
  /// answer with `commandEnded` when it ends, after the digest it printed as the app's `stateDigest` message.
  indirect case runCommand(
    app: String, pid: Int32, run: AppCommandRun, command: [String], workingDirectory: String?, timeout: Duration)
  /// Answer the app's request `requestID`.
  case reply(app: String, pid: Int32, requestID: Int, AppReply)
  /// Tell the app a message of its could not be taken.
  case appError(app: String, pid: Int32, requestID: Int?, code: AppProtocolErrorCode, message: String)
}
