import JetsamCore
import JetsamPlatform
import JetsamValues

/// The supervisor's side of one running app: its cgroup, its main process, its channel, and what is known
/// about its end. Only ``AppSupervisor`` changes it.
final class AppProcess {
  let name: String
  let launch: Int
  let cgroup: any AppCgroupControl
  let pid: Int32
  let pidfd: FileDescriptor
  /// Watches the pidfd for the main process's exit.
  var exitSource: (any LoopSource)?
  /// Watches cgroup.events (`POLLPRI`): the cgroup emptied after the main process ended, or it froze.
  var eventsSource: (any LoopSource)?
  /// Retries reading an adopted process's exit status while the kernel cannot tell it yet.
  var exitStatusRetry: (any LoopSource)?
  var exitStatusAttempts = 0
  /// How the main process ended, once known (the app is reported only when its cgroup is also empty).
  var end: ProcessEnd?
  /// The memory-release thread of a kill, until it has returned.
  var releaseSource: (any LoopSource)?
  /// Whether jetsamd already sent this app its SIGKILL.
  var killed = false
  /// The daemon's end of the app's channel.
  var channel: (any AppChannelEndpoint)?
  /// How jetsamd stopped it and what it has seen of the stop (``AppSuspender``'s).
  var stop = StopState()
  /// Whether a previous daemon launched it (it is not our child: its exit status comes from its pidfd).
  var adopted = false
  /// The main process's start time in ticks since boot (with the pid, it survives into the state file).
  var startTime: UInt64 = 0
  /// Set once its exit went to the policy, so a late cgroup event cannot report it twice.
  var reported = false
  /// The app's crash socket, when crash diagnostics are on.
  var crashSocket: CrashSocket?
  /// What its main process had written to storage when it ended (`/proc/PID/io` `write_bytes` of the zombie, read
  /// just before jetsamd reaped it: its own writes and its reaped children's); nil when another process reaps it.
  var writtenAtEnd: Int64?

  init(name: String, launch: Int, cgroup: any AppCgroupControl, pid: Int32, pidfd: FileDescriptor) {
    self.name = name
    self.launch = launch
    self.cgroup = cgroup
    self.pid = pid
    self.pidfd = pidfd
  }

  /// Whether the cgroup still has processes (a cgroup that cannot be read counts as empty: it is gone).
  var isPopulated: Bool { (try? cgroup.events().populated) ?? false }

  /// Stops watching, closes the channel and the pidfd.
  func close() {
    for source in [exitSource, eventsSource, exitStatusRetry, releaseSource] { source?.cancel() }
    exitSource = nil
    eventsSource = nil
    exitStatusRetry = nil
    releaseSource = nil
    channel?.close()
    channel = nil
    crashSocket?.close()
    crashSocket = nil
    if pidfd.rawValue >= 0 { pidfd.close() }
  }
}

/// How jetsamd stopped an app, and what it has seen of the stop.
struct StopState {
  /// Whether jetsamd froze its cgroup (freezer mode), so that resuming thaws it whatever the mode is now.
  var frozen = false
  /// The processes told to stop since the last stop check (signal mode): the check right after the batch does not
  /// tell them again, microseconds later; later checks tell every process still running (someone may have sent
  /// SIGCONT).
  var toldToStop: Set<Int32> = []
  /// Whether the stop check that saw the app stopped found its main process alone in the cgroup (signal mode): a
  /// stopped process cannot fork, so resuming it needs no listing of the cgroup.
  var stoppedAlone = false
  /// Whether the app's main process was seen stopped by jetsamd's SIGSTOP (signal mode) and not continued by
  /// jetsamd since: a continuation now is someone else's.
  var signalStopped = false
}
