import CJetsamShim
import Glibc

/// The two pieces of systemd's service protocol that jetsam-spawner uses, spoken without libsystemd: the socket
/// passed by socket activation (`LISTEN_PID`, `LISTEN_FDS`) and `READY=1` (`NOTIFY_SOCKET`). Each is a no-op
/// without a service manager.
public enum ServiceNotification {
  /// The first descriptor systemd passed at start (socket activation), if any; taken once (the `LISTEN_*`
  /// variables are unset, so that apps never see them), as `sd_listen_fds(1)` does.
  public static func takePassedDescriptor() -> Int32? {
    defer {
      unsetenv("LISTEN_PID")
      unsetenv("LISTEN_FDS")
      unsetenv("LISTEN_FDNAMES")
    }
    guard let pid = getenv("LISTEN_PID").map({ String(cString: $0) }), Int32(pid) == getpid(),
      let count = getenv("LISTEN_FDS").flatMap({ Int(String(cString: $0)) }), count > 0
    else { return nil }
    // SD_LISTEN_FDS_START: passed descriptors start at 3. None of them is inherited by what is started later.
    for fd in 3..<(3 + Int32(count)) { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) }
    return 3
  }

  /// READY=1 with a status line and the main pid.
  public static func ready(status: String) {
    _ = jetsam_notify("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
  }
}
