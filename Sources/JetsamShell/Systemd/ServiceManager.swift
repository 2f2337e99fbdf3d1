import CSystemd
import Glibc

/// Talks to systemd when it runs jetsamd as a `Type=notify` service; every call is a no-op otherwise
/// (`sd_notify` returns 0 when NOTIFY_SOCKET is unset).
public struct ServiceManager: Sendable {
  public init() {}

  /// Whether a service manager listens (NOTIFY_SOCKET is set).
  public var isPresent: Bool { getenv("NOTIFY_SOCKET") != nil }

  /// READY=1 with a status line: sent only once cgroups, the record log and the control socket are up.
  public func ready(status: String) { send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())") }

  /// STATUS= for `systemctl status`.
  public func status(_ text: String) { send("STATUS=\(text)") }

  /// RELOADING=1 before a configuration reload (READY=1 follows when it is applied or rejected).
  public func reloading() {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    let usec = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    send("RELOADING=1\nMONOTONIC_USEC=\(usec)")
  }

  /// STOPPING=1 when a stop begins.
  public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }

  private func send(_ text: String) { _ = sd_notify(0, text) }
}
