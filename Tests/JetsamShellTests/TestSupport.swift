import CJetsamShim
import Glibc
import JetsamCore
import JetsamShell
import Testing

/// Whether the tests run as root (creating cgroups and changing users needs it).
let isRoot = getuid() == 0

/// `CAP_SYS_RESOURCE` from `<linux/capability.h>` (not in the Glibc module): needed to lower `oom_score_adj`.
let capSysResource: Int32 = 24

/// Whether the test process has a capability in its effective set (`CapEff` in `/proc/self/status`).
func hasCapability(_ capability: Int32) -> Bool {
  guard let mask = statusField(pid: getpid(), "CapEff").flatMap({ UInt64($0, radix: 16) }) else { return false }
  return mask & (1 << UInt64(capability)) != 0
}

/// Where the package's built executables are.
enum TestBinaries {
  /// The package root, three levels above this file (`Tests/JetsamShellTests/TestSupport.swift`).
  static let packageRoot: String = {
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/")
  }()

  /// `$JETSAM_BIN_DIR` when set (a custom `--scratch-path` build), else `<package root>/.build/debug`.
  static var directory: String {
    if let value = getenv("JETSAM_BIN_DIR"), value.pointee != 0 { return String(cString: value) }
    return packageRoot + "/.build/debug"
  }

  /// The misbehaving test program (`Sources/jetsam-testapp`).
  static var testapp: String { directory + "/jetsam-testapp" }
}

/// The `statfs` magic number of a cgroup2 mount.
private let cgroup2SuperMagic = 0x6367_7270

/// A throwaway set of cgroups for one test, named uniquely, removed by ``destroy()``.
///
/// On a pure cgroup v2 host it is a single directory under `/sys/fs/cgroup`. On the hybrid layout of the build
/// machines it is a directory in the unified mount (for `CLONE_INTO_CGROUP`) plus `memory` and `pids` v1
/// directories that the child joins through their `cgroup.procs`.
final class TestCgroup {
  /// The unique directory name, the same in every hierarchy.
  let name: String
  /// The cgroup v2 directory and an open fd on it, for ``SpawnRequest/cgroupDirectory``.
  let v2Path: String
  let directory: FileDescriptor
  /// The v1 directories by controller (empty on a pure v2 host).
  let v1Paths: [String: String]

  private nonisolated(unsafe) static var counter = 0

  /// Whether `/sys/fs/cgroup` itself is a cgroup2 mount.
  static var isPureV2: Bool {
    jetsam_statfs_type("/sys/fs/cgroup") == cgroup2SuperMagic
  }

  init() throws {
    TestCgroup.counter += 1
    name = "jetsam-test-\(getpid())-\(TestCgroup.counter)-\(UInt32.random(in: 0...UInt32.max))"
    if TestCgroup.isPureV2 {
      v2Path = "/sys/fs/cgroup/\(name)"
      v1Paths = [:]
    } else {
      v2Path = "/sys/fs/cgroup/unified/\(name)"
      v1Paths = ["memory": "/sys/fs/cgroup/memory/\(name)", "pids": "/sys/fs/cgroup/pids/\(name)"]
    }
    var made: [String] = []
    do {
      for path in [v2Path] + v1Paths.values.sorted() {
        try systemCall("mkdir \(path)") { mkdir(path, 0o755) }
        made.append(path)
      }
      directory = try FileDescriptor.open(v2Path, O_RDONLY | O_DIRECTORY)
    } catch {
      for path in made.reversed() { rmdir(path) }
      throw error
    }
  }

  /// The v1 `cgroup.procs` files a child must join.
  var joinProcsFiles: [String] { v1Paths.values.sorted().map { $0 + "/cgroup.procs" } }

  /// A request that starts `jetsam-testapp` with `arguments` inside these cgroups.
  func testappRequest(_ arguments: [String]) -> SpawnRequest {
    SpawnRequest(
      arguments: [TestBinaries.testapp] + arguments, environment: ["PATH=/usr/bin:/bin"],
      cgroupDirectory: directory, joinProcsFiles: joinProcsFiles)
  }

  /// The pids currently in any of the directories.
  func members() -> Set<Int32> {
    var pids = Set<Int32>()
    for path in [v2Path] + v1Paths.values.sorted() {
      let text = (try? readTextFile(path + "/cgroup.procs")) ?? ""
      for line in text.split(separator: "\n") { if let pid = Int32(line) { pids.insert(pid) } }
    }
    return pids
  }

  /// SIGKILLs every member by pid until the directories are empty, then removes them.
  func destroy() {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      let pids = members()
      if pids.isEmpty { break }
      for pid in pids { kill(pid, SIGKILL) }
      sleepBriefly()
    }
    directory.close()
    for path in v1Paths.values.sorted() + [v2Path] {
      // A task that just died can keep a v1 directory busy for a moment.
      var attempts = 0
      while rmdir(path) != 0 && errno == EBUSY && attempts < 500 {
        attempts += 1
        sleepBriefly()
      }
    }
  }
}

/// A pipe whose two ends are close-on-exec (other tests may spawn meanwhile), as (read end, write end).
func makePipe() throws -> (FileDescriptor, FileDescriptor) {
  var fds: [Int32] = [0, 0]
  try systemCall("pipe") { pipe(&fds) }
  for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
  return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
}

/// Sleeps 5 ms.
func sleepBriefly() { usleep(5000) }

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    if condition() { return true }
    if ContinuousClock.now >= deadline { return false }
    sleepBriefly()
  }
}

/// Each cgroup hierarchy's path for a process, from `/proc/PID/cgroup`: controller list → path ("" for v2).
func cgroupMembership(pid: Int32) -> [String: String] {
  guard let text = try? readTextFile("/proc/\(pid)/cgroup") else { return [:] }
  var result: [String: String] = [:]
  for line in text.split(separator: "\n") {
    let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count == 3 else { continue }
    result[String(fields[1])] = String(fields[2])
  }
  return result
}

/// A fresh temporary directory, for marker, pid and report files.
func makeTemporaryDirectory() throws -> String {
  var template = Array("/tmp/jetsam-test-XXXXXX".utf8CString)
  guard let result = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
  return String(cString: result)
}

/// Removes a temporary directory made by ``makeTemporaryDirectory()`` with the files in it (no subdirectories).
func removeTemporaryDirectory(_ path: String) {
  if let dir = opendir(path) {
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { unlink(path + "/" + name) }
    }
    closedir(dir)
  }
  rmdir(path)
}

/// The descriptor numbers open in a process, from `/proc/PID/fd`.
func openDescriptors(pid: Int32) -> [Int32] {
  guard let dir = opendir("/proc/\(pid)/fd") else { return [] }
  defer { closedir(dir) }
  var result: [Int32] = []
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    if let fd = Int32(name) { result.append(fd) }
  }
  return result.sorted()
}

/// Where a symbolic link points (`/proc/PID/fd/N`), or nil.
func readLink(_ path: String) -> String? {
  var buffer = [CChar](repeating: 0, count: 4096)
  let length = readlink(path, &buffer, buffer.count - 1)
  guard length >= 0 else { return nil }
  return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// One line of `/proc/PID/status`, e.g. `status(pid, "Uid")` → `"0\t0\t0\t0"`.
func statusField(pid: Int32, _ key: String) -> String? {
  guard let text = try? readTextFile("/proc/\(pid)/status") else { return nil }
  for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
    return String(line.dropFirst(key.count + 1).drop { $0 == " " || $0 == "\t" })
  }
  return nil
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
