import Glibc
import JetsamPlatform

/// One jetsamd per state directory and per device cgroup, for the daemon's whole life: an exclusive `flock` on a
/// descriptor kept open. The kernel drops it when the process ends, crash included, so a lock is never stale
/// and a restarted jetsamd never waits for one; while a daemon lives, a second one refuses to start before it
/// has touched a record, a cgroup or an app.
final class DaemonLock {
  private let descriptor: FileDescriptor

  /// Locks `<stateDirectory>/jetsamd.lock` (created private, never through a symlink) and writes our pid in it.
  static func stateDirectory(_ directory: String) throws(SystemError) -> DaemonLock {
    let path = directory + "/jetsamd.lock"
    let fd = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
    guard flock(fd.rawValue, LOCK_EX | LOCK_NB) == 0 else {
      let owner = (try? fd.readText()).map { $0.trimmingWhitespace } ?? ""
      fd.close()
      throw SystemError(
        code: EWOULDBLOCK,
        "another jetsamd\(owner.isEmpty ? "" : " (pid \(owner))") is using the state directory \(directory)")
    }
    _ = ftruncate(fd.rawValue, 0)
    try? fd.writeAll(Array("\(getpid())\n".utf8))
    return DaemonLock(descriptor: fd)
  }

  /// Locks the device cgroup's directory itself: two daemons with different state directories must not share
  /// one emulated device either.
  static func device(_ directory: String) throws(SystemError) -> DaemonLock {
    let fd = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
    guard flock(fd.rawValue, LOCK_EX | LOCK_NB) == 0 else {
      fd.close()
      throw SystemError(code: EWOULDBLOCK, "another jetsamd is running on the device cgroup \(directory)")
    }
    return DaemonLock(descriptor: fd)
  }

  private init(descriptor: FileDescriptor) { self.descriptor = descriptor }

  deinit { descriptor.close() }
}
