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

  /// Keeps a copy of `fd` in systemd's file-descriptor store under `name` (FDSTORE=1), so that the next
  /// jetsamd gets it back after a restart. No-op without a service manager or without FileDescriptorStoreMax=.
  public func storeDescriptor(_ fd: Int32, name: String) {
    guard isPresent else { return }
    var descriptor = fd
    _ = sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=\(name)", &descriptor, 1)
  }

  /// Drops the stored descriptors called `name`.
  public func removeStoredDescriptor(name: String) {
    guard isPresent else { return }
    send("FDSTOREREMOVE=1\nFDNAME=\(name)")
  }

  /// The descriptors systemd passed at start (socket activation and the descriptor store), with their names;
  /// takes them once (the LISTEN_* variables are unset, so that apps never see them).
  public static func takePassedDescriptors() -> [(fd: Int32, name: String)] {
    var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    let count = sd_listen_fds_with_names(1, &names)
    guard count > 0 else { return [] }
    defer {
      if let names {
        for index in 0..<Int(count) { free(names[index]) }
        free(names)
      }
    }
    return (0..<Int(count)).map { index in
      (SD_LISTEN_FDS_START + Int32(index), names?[index].map { String(cString: $0) } ?? "")
    }
  }

  private func send(_ text: String) { _ = sd_notify(0, text) }
}
