import Glibc
import JetsamPlatform

/// Replaces the file at `path` with `bytes` at once: readers see the old content or the new, never part of it.
///
/// The temporary file (`path.tmp`) is created anew and exclusively: whatever is in its place (a leftover, or a
/// symlink someone planted) goes first, and the file is never opened through a link.
///
/// - Parameter durable: fsync the file and its directory before returning, so that the new content survives a
///   crash (records); without it a crash may leave the previous content (the state file, rewritten often).
func replaceFile(at path: String, with bytes: some Collection<UInt8>, durable: Bool) throws(SystemError) {
  let temporary = path + ".tmp"
  unlink(temporary)
  let fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o640)
  defer { fd.close() }
  do {
    try fd.writeAll(bytes)
    if durable { try systemCall("fsync \(temporary)") { fsync(fd.rawValue) } }
    try systemCall("rename \(temporary)") { rename(temporary, path) }
  } catch {
    unlink(temporary)
    throw error
  }
  if durable { try syncDirectory(of: path) }
}
