import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamSpawning
import JetsamValues

/// Starts processes and learns how they ended: the kernel's launcher (clone3 and pidfds, jetsamd the parent), or
/// the spawner service's (``RemoteProcessLauncher``), whose answers come later through the loop.
public protocol ProcessLauncher: AnyObject {
  /// Starts `request`'s program and calls `completion` on the loop with the process (the caller owns its pidfd)
  /// or why it could not start: before returning (the kernel's launcher) or later (a spawner service). The
  /// request's descriptors are used or copied before `spawn` returns: the caller may close its own then.
  func spawn(_ request: SpawnRequest, completion: @escaping (Result<SpawnedProcess, SpawnError>) -> Void)
  /// Opens a pidfd for a process jetsamd did not start (re-adoption).
  func openPidfd(pid: pid_t) throws -> FileDescriptor
  /// How a process this launcher started ended, once its pidfd says it has (reaping it where it is jetsamd's
  /// child); nil while that is not known yet: see ``reportsExit(of:)``.
  func reap(pid: pid_t, pidfd: FileDescriptor) throws -> ProcessEnd?
  /// How a process that is not our child ended, if that can be told yet (its pidfd on Linux 6.15+, /proc while
  /// it is an unreaped zombie, or the spawner service that is its parent); nil when it cannot tell yet.
  func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd?
  /// Whether the end of `pid` will be told through ``exitKnown`` once it is known (a child of the spawner service),
  /// so that it is waited for rather than guessed.
  func reportsExit(of pid: pid_t) -> Bool
  /// Whether nobody will ask how `pid` ended (a hook): its status, when it comes, is dropped.
  func discardExit(of pid: pid_t)
  /// How `pid` ended, if it was told already though no pidfd of it is left to ask with (an app that ended while
  /// jetsamd was not running, told by the spawner service); nil otherwise.
  func takeReportedEnd(of pid: pid_t) -> ProcessEnd?
  /// The last process of app `name` whose end was told while jetsamd was not running and that nobody asked about by
  /// pid, with its end: an app whose pid the state file never held (a jetsamd died just after starting it).
  func takeReportedEnd(ofApp name: String) -> (pid: pid_t, end: ProcessEnd)?
  /// Called on the loop with a pid whose end became known after ``reap(pid:pidfd:)`` or
  /// ``exitStatus(ofAdopted:pidfd:startTime:)`` could not tell it.
  var exitKnown: ((pid_t) -> Void)? { get set }
  /// Called on the loop with a pid that someone continued (SIGCONT) after it had stopped, when jetsamd is not its
  /// parent and gets no SIGCHLD for it (a child of the spawner service).
  var childContinued: ((pid_t) -> Void)? { get set }
  /// The process's start time in clock ticks since boot (0 when it is gone): with the pid, one process.
  func startTime(of pid: pid_t) -> UInt64
}

/// The kernel's process launcher: jetsamd starts and reaps its apps itself.
public final class KernelProcessLauncher: ProcessLauncher {
  public var exitKnown: ((pid_t) -> Void)?
  /// Never called: jetsamd is its apps' parent and hears SIGCHLD itself.
  public var childContinued: ((pid_t) -> Void)?

  public init() {}

  public func spawn(_ request: SpawnRequest, completion: @escaping (Result<SpawnedProcess, SpawnError>) -> Void) {
    completion(Result { () throws(SpawnError) in try spawnProcess(request) })
  }

  public func openPidfd(pid: pid_t) throws -> FileDescriptor { try JetsamPlatform.openPidfd(pid: pid) }

  public func reap(pid: pid_t, pidfd: FileDescriptor) throws -> ProcessEnd? { try reapExit(pidfd: pidfd) }

  public func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? {
    Self.kernelExitStatus(ofAdopted: pid, pidfd: pidfd, startTime: startTime)
  }

  /// What the kernel can tell of how a process that is not our child ended.
  static func kernelExitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? {
    var status: Int32 = 0
    if jetsam_pidfd_exit_status(pidfd.rawValue, &status) == 1 { return ProcessEnd(waitStatus: status) }
    return ProcessStat.zombieExitStatus(pid: pid, startTime: startTime).map(ProcessEnd.init(waitStatus:))
  }

  public func reportsExit(of pid: pid_t) -> Bool { false }

  public func discardExit(of pid: pid_t) {}

  public func takeReportedEnd(of pid: pid_t) -> ProcessEnd? { nil }

  public func takeReportedEnd(ofApp name: String) -> (pid: pid_t, end: ProcessEnd)? { nil }

  public func startTime(of pid: pid_t) -> UInt64 { ProcessStat.startTime(pid: pid) ?? 0 }
}
