import CJetsamShim
import Glibc
import JetsamCore

/// Starts processes and learns how they ended (the real one uses clone3 and pidfds).
public protocol ProcessLauncher: AnyObject {
  /// Starts `request`'s program; the caller owns the returned pidfd.
  func spawn(_ request: SpawnRequest) throws -> SpawnedProcess
  /// Opens a pidfd for a process jetsamd did not start (re-adoption).
  func openPidfd(pid: pid_t) throws -> FileDescriptor
  /// Reaps a child that has ended; nil while it runs.
  func reap(pidfd: FileDescriptor) throws -> ProcessEnd?
  /// How a process that is not our child ended, if the kernel can tell yet (its pidfd on Linux 6.15+, or
  /// /proc while it is an unreaped zombie); nil when it cannot tell yet.
  func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd?
  /// The process's start time in clock ticks since boot (0 when it is gone): with the pid, one process.
  func startTime(of pid: pid_t) -> UInt64
}

/// The kernel's process launcher.
public final class KernelProcessLauncher: ProcessLauncher {
  public init() {}

  public func spawn(_ request: SpawnRequest) throws -> SpawnedProcess { try spawnProcess(request) }

  public func openPidfd(pid: pid_t) throws -> FileDescriptor { try JetsamShell.openPidfd(pid: pid) }

  public func reap(pidfd: FileDescriptor) throws -> ProcessEnd? { try reapExit(pidfd: pidfd) }

  public func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? {
    var status: Int32 = 0
    if jetsam_pidfd_exit_status(pidfd.rawValue, &status) == 1 { return ProcessEnd(waitStatus: status) }
    return ProcessStat.zombieExitStatus(pid: pid, startTime: startTime).map(ProcessEnd.init(waitStatus:))
  }

  public func startTime(of pid: pid_t) -> UInt64 { ProcessStat.startTime(pid: pid) ?? 0 }
}

extension ProcessEnd {
  /// A waitpid(2) status.
  init(waitStatus status: Int32) {
    let signal = status & 0x7f
    self = signal == 0 ? .exited(code: (status >> 8) & 0xff) : .signaled(signal: signal, dumpedCore: status & 0x80 != 0)
  }
}
