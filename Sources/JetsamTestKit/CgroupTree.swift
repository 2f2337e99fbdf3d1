import Glibc
import JetsamDaemonProcess
import JetsamPlatform

/// Removes a cgroup directory and every cgroup below it, deepest first, whatever was left running inside: the one
/// teardown of the tests and the bench.
///
/// Each directory is emptied by pid (never by name): every pid in its `cgroup.procs` gets SIGKILL and SIGCONT, after
/// a thaw (a task frozen by the v1 freezer does not act on SIGKILL until thawed, see PLATFORM.md), then `rmdir` is
/// tried again every 10 ms: a task that has just died keeps a v1 directory busy (`EBUSY`) for a moment. A directory
/// that is already gone counts as removed.
///
/// - Parameters:
///   - path: a cgroup directory. A hierarchy's root is refused: its processes are the whole machine's.
///   - timeout: how long one directory may take.
/// - Throws: ``TestKitError`` naming the directory and the last `rmdir` error.
public func removeCgroupTree(_ path: String, timeout: Duration = .seconds(10)) throws {
  guard access(path, F_OK) == 0 else { return }
  let parent = String(path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
  guard access(parent + "/cgroup.procs", F_OK) == 0 else {
    throw TestKitError("\(path) is not below a cgroup: refusing to kill its processes and remove it")
  }
  for entry in (try? directoryEntries(path)) ?? [] where entry.isDirectory {
    try removeCgroupTree(path + "/" + entry.name, timeout: timeout)
  }
  try? writeTextFile(path + "/freezer.state", "THAWED")
  try? writeTextFile(path + "/cgroup.freeze", "0")
  var lastError = SystemError(code: 0, "rmdir \(path)")
  let removed = eventually(timeout: timeout, interval: .milliseconds(10)) {
    for line in ((try? readTextFile(path + "/cgroup.procs")) ?? "").split(separator: "\n") {
      guard let pid = Int32(line) else { continue }
      kill(pid, SIGKILL)
      kill(pid, SIGCONT)
    }
    if rmdir(path) == 0 || errno == ENOENT { return true }
    lastError = SystemError.current("rmdir \(path)")
    return false
  }
  if !removed { throw TestKitError("could not remove cgroup \(path) within \(timeout.secondsText) s: \(lastError)") }
}
