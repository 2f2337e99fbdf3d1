import Glibc

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
