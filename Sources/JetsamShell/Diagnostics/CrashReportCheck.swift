import CJetsamShim
import Glibc
import JetsamCore
import JetsamPlatform

/// Whether a crash report may make jetsamd act on the process it names: only what the kernel says counts, never
/// the app's words. A report line is the app's to write, so its `pid` and `tid` could name any process on the
/// machine; jetsamd attaches to that process with ptrace to take its stacks.
///
/// A report is taken only if the kernel says its sender (the credentials it attached to the message) is the process
/// it names, that process is in the app's cgroup now, and the thread it names is one of that process's.
package enum CrashReportCheck {
  /// Why `report` is refused, or nil when it is taken. `sender` is the process the kernel says sent it (nil: no
  /// credentials came); `appProcesses` lists the app cgroup's processes; `isThread` says whether a thread belongs to
  /// a process.
  package static func refusal(
    of report: CrashReport, sender: Int32?, appProcesses: () -> [Int32],
    isThread: (_ tid: Int32, _ pid: Int32) -> Bool = CrashReportCheck.isThread
  ) -> String? {
    guard let sender, sender > 0 else { return "the kernel gave no sender for it" }
    guard sender == report.pid else { return "process \(sender) sent it, naming process \(report.pid)" }
    guard appProcesses().contains(report.pid) else { return "process \(report.pid) is not in the app's cgroup" }
    guard isThread(report.tid, report.pid) else {
      return "thread \(report.tid) is not one of process \(report.pid)'s"
    }
    return nil
  }

  /// Whether `tid` is a thread of process `pid` (its directory under /proc/PID/task exists).
  package static func isThread(_ tid: Int32, of pid: Int32) -> Bool {
    var st = stat()
    return stat("/proc/\(pid)/task/\(tid)", &st) == 0
  }

  /// A pidfd of process `pid`, checked to be in `cgroup` after the pidfd was opened and alive after the check: the
  /// process the check saw is then the pidfd's (a pid is reused only once its process is gone, which the pidfd
  /// would tell). The stack tool is given it, so that it attaches to this process and no other.
  static func openTarget(pid: Int32, in cgroup: any AppCgroupControl) throws(SystemError) -> FileDescriptor {
    let pidfd = try openPidfd(pid: pid)
    guard (try? cgroup.processIDs())?.contains(pid) == true else {
      pidfd.close()
      throw SystemError(code: ESRCH, "process \(pid) is not in \(cgroup.displayPath)")
    }
    // Still alive after the check: the process the check saw is the pidfd's.
    guard jetsam_pidfd_send_signal(pidfd.rawValue, 0) == 0 else {
      pidfd.close()
      throw SystemError(code: ESRCH, "process \(pid) ended")
    }
    return pidfd
  }
}
