import Glibc

extension ProcessStat {
  /// How a zombie ended, read from its `/proc/PID/stat` before anyone reaps it: for a process that is not our
  /// child (one adopted after a daemon restart), whose status `waitid` cannot give us.
  ///
  /// The kernel shows a zombie's exit code only to readers that may ptrace it, and 0 to others, which would look
  /// like a clean exit; so it is trusted only for processes of the caller's own effective user (`/proc/PID`
  /// belongs to the process's euid). Replaces the C shim's `jetsam_zombie_exit_status`.
  ///
  /// - Parameters:
  ///   - pid: the process.
  ///   - startTime: its ``startTime``, so that a new process that got the same pid is not taken for it.
  /// - Returns: the wait status (`waitpid` format) when `pid` is that process, a zombie of our own user; `nil`
  ///   otherwise.
  public static func zombieExitStatus(pid: Int32, startTime: UInt64) -> Int32? {
    var owner = stat()
    guard stat("/proc/\(pid)", &owner) == 0, owner.st_uid == geteuid() else { return nil }
    guard let current = try? read(pid: pid), current.state == "Z", current.startTime == startTime else {
      return nil
    }
    return current.exitStatus
  }
}
