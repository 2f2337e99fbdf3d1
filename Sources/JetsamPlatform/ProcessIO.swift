import Glibc

/// The I/O counters of `/proc/PID/io` (see proc_pid_io(5)), as far as jetsam uses them.
///
/// Measured on the build machines (kernel 6.18, ext4): `write_bytes` counts bytes a process sends towards storage
/// when it dirties page-cache pages (no need to wait for writeback or an fsync), `mmap` stores and `O_DIRECT` writes
/// included, and a dirty page written again before writeback only once; writes to tmpfs (`/dev/shm`), pipes,
/// sockets and `/dev/null` are not in it. `wchar` counts every `write(2)`-family byte, whatever it went to (pipes,
/// sockets, a terminal), and no `mmap` store. A file written then deleted before writeback stays counted in
/// `write_bytes` (and also in `cancelled_write_bytes`). A child's counters join its parent's when the parent reaps
/// it (a zombie keeps its own until then, and is not in its cgroup's `cgroup.procs` any more).
public struct ProcessIO: Sendable, Equatable {
  /// Bytes sent towards storage (`write_bytes`).
  public var writeBytes: Int64
  /// Bytes passed to write system calls, whatever they went to (`wchar`).
  public var writtenCharacters: Int64

  /// Parses the file's `key: value` lines; nil without `write_bytes`.
  public init?(parsing text: some StringProtocol) {
    var writeBytes: Int64?
    var wchar: Int64 = 0
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let value = Int64(parts[1].drop { $0 == " " })
      if parts[0] == "write_bytes" { writeBytes = value }
      if parts[0] == "wchar" { wchar = value ?? 0 }
    }
    guard let writeBytes else { return nil }
    self.writeBytes = writeBytes
    self.writtenCharacters = wchar
  }

  /// Reads `/proc/PID/io` (root, or the process's own user without ptrace restrictions, may).
  ///
  /// - Throws: ``SystemError`` (`ENOENT` or `ESRCH` when the process is gone, `EACCES` without permission).
  public static func read(pid: Int32) throws(SystemError) -> ProcessIO? {
    ProcessIO(parsing: try readTextFile("/proc/\(pid)/io", capacity: 512))
  }
}
