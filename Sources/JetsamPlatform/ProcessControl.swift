internal import CJetsamShim
import Glibc
import JetsamValues

/// Frees a killed process's memory now, on the caller's time, instead of waiting for its exit path
/// (`process_mrelease`, Linux 5.15+).
///
/// Call it right after sending `SIGKILL`. It only works on a process that is already dying.
///
/// - Returns: `true` when the kernel reaped the memory; `false` when there was nothing to do: the kernel lacks the
///   call (`ENOSYS`), the process is not dying (`EINVAL`), or its memory is already gone (`ESRCH`).
/// - Throws: ``SystemError`` for anything else (a bad descriptor).
public func releaseMemory(pidfd: FileDescriptor) throws(SystemError) -> Bool {
  do {
    try systemCall("process_mrelease pidfd \(pidfd.rawValue)") { jetsam_process_mrelease(pidfd.rawValue) }
    return true
  } catch {
    switch error.code {
    case ENOSYS, EINVAL, ESRCH: return false
    default: throw error
    }
  }
}

/// Whether a child of ours is stopped now (group stop, e.g. SIGSTOP), asked of its pidfd without reaping or
/// consuming anything (`waitid(P_PIDFD, WSTOPPED | WNOHANG | WNOWAIT)`): one system call, where reading
/// `/proc/PID/stat` takes three.
///
/// - Returns: true when stopped, false when running (or ended), nil when it is not our child (`ECHILD`: an
///   adopted process) or the call failed: ask /proc then.
public func isStoppedChild(pidfd: FileDescriptor) -> Bool? {
  childReports(pidfd: pidfd, waiting: Int32(JETSAM_WSTOPPED), code: Int32(JETSAM_CLD_STOPPED))
}

/// SIGCHLD's `si_code` for a child that was continued (`CLD_CONTINUED`).
public let childContinuedCode = Int32(JETSAM_CLD_CONTINUED)

/// Whether our child behind `pidfd` was continued (SIGCONT) since it last stopped
/// (`waitid(P_PIDFD, WCONTINUED | WNOHANG | WNOWAIT)`, which leaves the state to be asked again); nil when that
/// cannot be told (not our child).
public func isContinuedChild(pidfd: FileDescriptor) -> Bool? {
  childReports(pidfd: pidfd, waiting: Int32(JETSAM_WCONTINUED), code: childContinuedCode)
}

/// Whether our child behind `pidfd` was continued since it last stopped, consuming that news
/// (`waitid(P_PIDFD, WCONTINUED | WNOHANG)`), so that each continuation is told once.
public func takeContinued(pidfd: FileDescriptor) -> Bool {
  var info = siginfo_t()
  let options = Int32(JETSAM_WCONTINUED) | Int32(JETSAM_WNOHANG)
  guard (try? systemCall("waitid pidfd") { jetsam_waitid_pidfd(pidfd.rawValue, &info, options) }) != nil else {
    return false
  }
  return jetsam_siginfo_pid(&info) != 0 && jetsam_siginfo_code(&info) == childContinuedCode
}

/// Whether waitid, asked for `option` without consuming it, reports the child with `code`; nil when it fails.
private func childReports(pidfd: FileDescriptor, waiting option: Int32, code: Int32) -> Bool? {
  var info = siginfo_t()
  let options = option | Int32(JETSAM_WNOHANG) | Int32(JETSAM_WNOWAIT)
  guard (try? systemCall("waitid pidfd") { jetsam_waitid_pidfd(pidfd.rawValue, &info, options) }) != nil else {
    return nil
  }
  return jetsam_siginfo_pid(&info) != 0 && jetsam_siginfo_code(&info) == code
}

/// Reaps a child if it has ended (`waitid(P_PIDFD, WEXITED | WNOHANG)`); a child still running is left alone.
///
/// - Returns: how it ended, or `nil` while it is still running.
/// - Throws: ``SystemError`` (`ECHILD` when it is not our child or was already reaped).
public func reapExit(pidfd: FileDescriptor) throws(SystemError) -> ProcessEnd? {
  // Zero-initialised: when WNOHANG finds nothing the kernel leaves si_pid at 0, and that is how we can tell.
  var info = siginfo_t()
  try systemCall("waitid pidfd \(pidfd.rawValue)") {
    jetsam_waitid_pidfd(pidfd.rawValue, &info, Int32(JETSAM_WEXITED) | Int32(JETSAM_WNOHANG))
  }
  if jetsam_siginfo_pid(&info) == 0 { return nil }
  let status = jetsam_siginfo_status(&info)
  switch jetsam_siginfo_code(&info) {
  case Int32(JETSAM_CLD_EXITED): return .exited(code: status)
  case Int32(JETSAM_CLD_KILLED): return .signaled(signal: status, dumpedCore: false)
  case Int32(JETSAM_CLD_DUMPED): return .signaled(signal: status, dumpedCore: true)
  default:
    // WEXITED alone never reports stops or continues.
    return nil
  }
}
