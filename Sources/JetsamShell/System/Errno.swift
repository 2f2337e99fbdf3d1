import Glibc

/// A failed system call: the C `errno` value plus what was being attempted, so that a message names both.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The C `errno` value.
  public var code: Int32
  /// What was being done, e.g. `open /sys/fs/cgroup/memory/x/memory.limit_in_bytes`.
  public var operation: String

  public init(code: Int32, _ operation: String) {
    self.code = code
    self.operation = operation
  }

  /// Captures the calling thread's current `errno`.
  public static func current(_ operation: String) -> SystemError {
    SystemError(code: errno, operation)
  }

  public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// Runs a system call that returns -1 and sets `errno` on failure, retrying on `EINTR`.
///
/// - Parameters:
///   - operation: a description for the error message.
///   - retryOnInterrupt: pass `false` for calls that must never be retried (`close`).
///   - call: the system call.
/// - Returns: the call's non-negative result.
/// - Throws: ``SystemError`` with the call's `errno`.
@discardableResult
public func systemCall<T: FixedWidthInteger>(
  _ operation: @autoclosure () -> String, retryOnInterrupt: Bool = true, _ call: () -> T
) throws(SystemError) -> T {
  while true {
    let result = call()
    if result != -1 { return result }
    let code = errno
    if code == EINTR && retryOnInterrupt { continue }
    throw SystemError(code: code, operation())
  }
}
