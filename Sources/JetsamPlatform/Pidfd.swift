internal import CJetsamShim
import JetsamValues

/// Opens a pidfd for a process jetsam did not spawn itself (one adopted after a daemon restart, a victim the bench
/// watches). The corresponding C function is `pidfd_open`.
///
/// A pidfd names one process for good: it cannot hit a recycled pid, and it polls readable once the process exits.
///
/// - Returns: an `O_CLOEXEC` pidfd the caller owns.
/// - Throws: ``SystemError`` (`ESRCH` when no such process exists).
public func openPidfd(pid: Int32) throws(SystemError) -> FileDescriptor {
  FileDescriptor(rawValue: try systemCall("pidfd_open \(pid)") { jetsam_pidfd_open(pid, 0) })
}

/// Sends a signal through a pidfd, which cannot hit a recycled pid.
///
/// - Throws: ``SystemError`` (`ESRCH` once the process has exited, even before it is reaped).
public func sendSignal(pidfd: FileDescriptor, _ signal: Signal) throws(SystemError) {
  try systemCall("pidfd_send_signal \(signal) to pidfd \(pidfd.rawValue)") {
    jetsam_pidfd_send_signal(pidfd.rawValue, signal.rawValue)
  }
}
