import Glibc

/// A failed system call: the C `errno` value plus what was being attempted, so that a message names both.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The C `errno` value.
  public var code: Int32
  /// What was being done, e.g. `open /sys/fs/cgroup/memory/x/memory.limit_in_bytes`.
  public var operation: String

  /// An error with this `errno` value, for `operation`.
  public init(code: Int32, _ operation: String) {
    self.code = code
    self.operation = operation
  }

  /// Captures the calling thread's current `errno`.
  public static func current(_ operation: String) -> SystemError {
    SystemError(code: errno, operation)
  }

  /// The operation and the C library's text for the code (`strerror`).
  public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
