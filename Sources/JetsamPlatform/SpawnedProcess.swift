import Glibc

/// A running program: its pid and a pidfd (`O_CLOEXEC`) that the caller owns and must close after reaping.
public struct SpawnedProcess: Hashable, Sendable {
  public let pid: Int32
  public let pidfd: FileDescriptor

  public init(pid: Int32, pidfd: FileDescriptor) {
    self.pid = pid
    self.pidfd = pidfd
  }
}
