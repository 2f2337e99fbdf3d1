import Glibc

/// An owned file descriptor with the few operations jetsam needs; the caller closes it explicitly.
///
/// A plain value rather than a class: who owns an fd is stated where it is stored, and closing is explicit
/// (an fd handed to sd-event or to a child process must not be closed behind its back by a deinit).
public struct FileDescriptor: Hashable, Sendable {
  /// The raw descriptor number.
  public let rawValue: Int32

  /// Takes ownership of a descriptor number.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// Opens a path with `O_CLOEXEC` added to the flags. The corresponding C function is `open`.
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemError)
    -> FileDescriptor
  {
    let fd = try systemCall("open \(path)") { Glibc.open(path, flags | O_CLOEXEC, mode) }
    return FileDescriptor(rawValue: fd)
  }

  /// Closes the descriptor (never retried: Linux releases it even when `close` reports `EINTR`).
  public func close() { _ = Glibc.close(rawValue) }

  /// A second descriptor of the same open file (close-on-exec), to be kept and closed on its own.
  public func duplicate() throws(SystemError) -> FileDescriptor {
    let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { throw SystemError.current("dup \(rawValue)") }
    return FileDescriptor(rawValue: copy)
  }

  /// Reads up to `capacity` bytes from `offset`, returning them. The corresponding C function is `pread`.
  public func read(at offset: Int64 = 0, capacity: Int = 4096) throws(SystemError) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: capacity)
    let count = try systemCall("pread fd \(rawValue)") {
      buffer.withUnsafeMutableBytes { pread(rawValue, $0.baseAddress, $0.count, off_t(offset)) }
    }
    buffer.removeSubrange(count...)
    return buffer
  }

  /// Reads the whole content from offset 0 as text (kernfs files are small and fit one read).
  public func readText(capacity: Int = 4096) throws(SystemError) -> String {
    String(decoding: try read(capacity: capacity), as: UTF8.self)
  }

  /// Writes all of `bytes`, looping over partial writes.
  public func writeAll(_ bytes: some Collection<UInt8>) throws(SystemError) {
    let array = Array(bytes)
    var written = 0
    while written < array.count {
      let n = try systemCall("write fd \(rawValue)") {
        array.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + written, $0.count - written) }
      }
      written += n
    }
  }

  /// Writes a string in one `write` call, as cgroupfs control files require.
  public func writeText(_ text: String) throws(SystemError) {
    try writeAll(Array(text.utf8))
  }
}
