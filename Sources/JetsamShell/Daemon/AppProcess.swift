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
  /// Set once its exit went to the policy, so a late cgroup event cannot report it twice.
  var reported = false

  init(name: String, launch: Int, cgroup: AppCgroup, pid: Int32, pidfd: FileDescriptor) {
    self.name = name
    self.launch = launch
    self.cgroup = cgroup
    self.pid = pid
    self.pidfd = pidfd
  }

  /// Stops watching and closes the pidfd.
  func close() {
    exitSource?.cancel()
    drainSource?.cancel()
    releaseSource?.cancel()
    exitSource = nil
    drainSource = nil
    releaseSource = nil
    pidfd.close()
  }
}
