import Glibc
import JetsamDaemonProcess
import JetsamTestKit

/// An earlyoom started only to measure its own cost next to the idle daemon: alone in a PID namespace (so there is
/// nothing it could kill) with a threshold of 1 MiB available it never reaches.
struct IdleEarlyoom {
  let namespace: ChildProcess
  /// earlyoom's pid (the namespace's init, seen from outside).
  let pid: Int32

  static func start(_ earlyoom: String) throws -> IdleEarlyoom {
    let namespace = try ChildProcess(
      "/usr/bin/unshare", ["--pid", "--fork", "--mount-proc", "--kill-child", earlyoom, "-M", "1024,1024", "-r", "0"],
      realTimeLog: true)
    let start = MonotonicTime.now()
    while MonotonicTime.seconds(since: start) < 5 {
      if let pid = ProcessStats.children(namespace.pid).first { return IdleEarlyoom(namespace: namespace, pid: pid) }
      MonotonicTime.sleep(milliseconds: 5)
    }
    namespace.stop(signal: SIGKILL)
    throw BenchError("idle earlyoom did not start:\n\(namespace.log.text)")
  }

  /// SIGKILLs earlyoom (ending its namespace) and reaps unshare.
  func stop() {
    kill(pid, SIGKILL)
    namespace.stop(signal: SIGKILL)
  }
}
