import Glibc

/// The real-time round of the Linux scheduler (`SCHED_FIFO`), as a memory killer uses it: Android's lmkd runs at
/// `SCHED_FIFO` 1 so that the processes it signals cannot delay its next kill.
///
/// Always with `SCHED_RESET_ON_FORK`: threads and processes started afterwards (apps, hooks, helper threads)
/// begin on the normal scheduler and cannot keep a core to themselves.
public enum RealtimeScheduling {
  /// `SCHED_RESET_ON_FORK`, which Glibc's headers do not export.
  static let resetOnFork: Int32 = 0x4000_0000

  /// Moves the calling thread to `SCHED_FIFO` at `priority` (1–99), unless it already runs there at `priority` or
  /// above (a service manager set it, e.g. systemd's `CPUSchedulingPolicy=fifo`).
  ///
  /// - Throws: ``SystemError`` (`EPERM` without `CAP_SYS_NICE`, or where a seccomp filter such as systemd's
  ///   `RestrictRealtime=yes` refuses real-time policies).
  public static func enter(priority: Int32) throws(SystemError) {
    if let current = fifoPriority(of: 0), current >= priority { return }
    var parameters = sched_param(sched_priority: priority)
    guard sched_setscheduler(0, SCHED_FIFO | resetOnFork, &parameters) == 0 else {
      throw SystemError.current("sched_setscheduler SCHED_FIFO \(priority)")
    }
  }

  /// The `SCHED_FIFO` priority of thread `tid` (0: the calling thread), nil when it runs under another policy or
  /// is gone.
  public static func fifoPriority(of tid: Int32) -> Int32? {
    let policy = sched_getscheduler(tid)
    guard policy >= 0, policy & ~resetOnFork == SCHED_FIFO else { return nil }
    var parameters = sched_param()
    guard sched_getparam(tid, &parameters) == 0 else { return nil }
    return parameters.sched_priority
  }

  /// Whether thread `tid` runs with `SCHED_RESET_ON_FORK` (what it starts begins on the normal scheduler).
  public static func resetsOnFork(_ tid: Int32) -> Bool {
    let policy = sched_getscheduler(tid)
    return policy >= 0 && policy & resetOnFork != 0
  }
}
