import JetsamCore

/// The shell's side of one running app: its cgroup, its main process, and what is known about its end.
final class AppProcess {
  let name: String
  let launch: Int
  let cgroup: AppCgroup
  let pid: Int32
  let pidfd: FileDescriptor
  /// Watches the pidfd for the main process's exit.
  var exitSource: EventSource?
  /// Watches cgroup.events until the cgroup is empty after the main process ended.
  var drainSource: EventSource?
  /// How the main process ended, once reaped (the app is reported only when its cgroup is also empty).
  var end: ProcessEnd?
  /// Memory charged when jetsam or a user killed it (the most telling figure for a killed app).
  var memoryAtKill: Int64?
  /// The snapshot taken at a jetsam kill, with each app's memory filled in.
  var snapshot: [SnapshotEntry]?
  /// Watches the eventfd the memory-release thread signals when process_mrelease has returned.
  var releaseSource: EventSource?
  /// The daemon's end of the app's channel.
  var channel: AppChannel?
  /// Whether acknowledgements are expected, and the hooks for programs that do not speak the protocol.
  var acknowledgements: AcknowledgementMode = .auto
  var hooks: [AppEventKind: LifecycleHook] = [:]
  /// Whether the app has written a valid line (in `auto` mode, from then on it is watched).
  var hasSpoken = false
  /// The state summary (the last one from an earlier launch until the app sets a new one).
  var summary: String?
  /// The digest of the state the previous launch saved, and what this launch saved and restored.
  var previousDigest: String?
  var savedDigest: String?
  var restoredDigest: String?
  /// Whether jetsamd froze its cgroup (freezer mode), so that resuming thaws it whatever the mode is now.
  var frozen = false
  /// Whether a previous daemon launched it (it is not our child: its exit status comes from its pidfd).
  var adopted = false
  /// The main process's start time in ticks since boot (with the pid, it survives into the state file).
  var startTime: UInt64 = 0
  /// Hook commands running for lifecycle events.
  var hookProcesses: [HookProcess] = []
  /// Set once its exit went to the policy, so a late cgroup event cannot report it twice.
  var reported = false

  init(name: String, launch: Int, cgroup: AppCgroup, pid: Int32, pidfd: FileDescriptor) {
    self.name = name
    self.launch = launch
    self.cgroup = cgroup
    self.pid = pid
    self.pidfd = pidfd
  }

  /// Whether a restored state matched the one saved before the previous exit: `match`, `mismatch`, `pending`
  /// (a saved digest is known but nothing was restored yet), or nil when there is nothing to compare.
  var restoration: String? {
    guard let previousDigest else { return nil }
    guard let restoredDigest else { return "pending" }
    return restoredDigest == previousDigest ? "match" : "mismatch"
  }

  /// Stops watching and closes the pidfd.
  func close() {
    exitSource?.cancel()
    drainSource?.cancel()
    releaseSource?.cancel()
    channel?.close()
    channel = nil
    for hook in hookProcesses { hook.close() }
    hookProcesses = []
    exitSource = nil
    drainSource = nil
    releaseSource = nil
    if pidfd.rawValue >= 0 { pidfd.close() }
  }
}
