import Glibc
import JetsamCore
import JetsamPlatform
import JetsamShell
import JetsamTestKit
import JetsamValues
import Testing

/// `CAP_SYS_RESOURCE` from `<linux/capability.h>` (not in the Glibc module): needed to lower `oom_score_adj`.
let capSysResource: Int32 = 24

/// A throwaway set of cgroups for one spawn test (a ``ScratchCgroup``), with an open fd on its cgroup2 directory
/// for ``SpawnRequest/cgroupDirectory``; removed by ``destroy()``.
///
/// On a pure cgroup v2 host it is a single directory under `/sys/fs/cgroup`. On the hybrid layout of the build
/// machines it is a directory in the unified mount (for `CLONE_INTO_CGROUP`) plus `memory` and `pids` v1
/// directories that the child joins through their `cgroup.procs`.
final class TestCgroup {
  private let scratch: ScratchCgroup
  /// An open fd on the cgroup2 directory.
  let directory: FileDescriptor

  private nonisolated(unsafe) static var counter = 0

  init() throws {
    TestCgroup.counter += 1
    scratch = try ScratchCgroup(
      name: "jetsam-test-\(getpid())-\(TestCgroup.counter)-\(UInt32.random(in: 0...UInt32.max))",
      placement: .hierarchyRoot, v1Controllers: ["memory", "pids"])
    do {
      directory = try FileDescriptor.open(scratch.unifiedDirectory!, O_RDONLY | O_DIRECTORY)
    } catch {
      try? scratch.destroy()
      throw error
    }
  }

  /// The unique directory name, the same in every hierarchy.
  var name: String { scratch.name }
  /// The v1 directories by controller (empty on a pure v2 host).
  var v1Paths: [String: String] { scratch.v1Directories }
  /// The v1 `cgroup.procs` files a child must join.
  var joinProcsFiles: [String] { scratch.joinProcsFiles }

  /// A request that starts `jetsam-testapp` with `arguments` inside these cgroups.
  func testappRequest(_ arguments: [String]) -> SpawnRequest {
    SpawnRequest(
      arguments: [Binaries.current.testapp] + arguments, environment: ["PATH=/usr/bin:/bin"],
      cgroupDirectory: directory, joinProcsFiles: joinProcsFiles)
  }

  /// The pids currently in any of the directories.
  func members() -> Set<Int32> { scratch.processIDs() }

  /// Kills every member by pid and removes the directories.
  func destroy() {
    directory.close()
    do { try scratch.destroy() } catch { Issue.record("\(error)") }
  }
}

/// A pipe whose two ends are close-on-exec (other tests may spawn meanwhile), as (read end, write end).
func makePipe() throws -> (FileDescriptor, FileDescriptor) {
  var fds: [Int32] = [0, 0]
  try systemCall("pipe") { pipe(&fds) }
  for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
  return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
}

/// A fresh temporary directory, for marker, pid and report files.
func makeTemporaryDirectory() throws -> String {
  var template = Array("/tmp/jetsam-test-XXXXXX".utf8CString)
  guard let result = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
  return String(cString: result)
}

/// Removes a temporary directory made by ``makeTemporaryDirectory()`` with the files in it (no subdirectories).
func removeTemporaryDirectory(_ path: String) {
  for entry in (try? directoryEntries(path)) ?? [] { unlink(path + "/" + entry.name) }
  rmdir(path)
}

/// The descriptor numbers open in a process, from `/proc/PID/fd`.
func openDescriptors(pid: Int32) -> [Int32] {
  ((try? directoryEntries("/proc/\(pid)/fd")) ?? []).compactMap { Int32($0.name) }.sorted()
}

/// Where a symbolic link points (`/proc/PID/fd/N`), or nil.
func readLink(_ path: String) -> String? {
  var buffer = [CChar](repeating: 0, count: 4096)
  let length = readlink(path, &buffer, buffer.count - 1)
  guard length >= 0 else { return nil }
  return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension SpawnedProcess {
  /// Waits (poll on the pidfd) until the process ends and reaps it.
  func waitForEnd(timeout: Duration = .seconds(20)) throws -> ProcessEnd? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if let end = try reapExit(pidfd: pidfd) { return end }
      var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
      _ = poll(&entry, 1, 100)
    }
    return nil
  }

  /// Test cleanup: SIGKILL unless already reaped, reap, close the pidfd. Safe after ``waitForEnd(timeout:)``.
  func killAndReap() {
    _ = try? sendSignal(pidfd: pidfd, .kill)
    _ = try? waitForEnd(timeout: .seconds(10))
    pidfd.close()
  }
}
