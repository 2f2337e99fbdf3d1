import Glibc
import JetsamDaemonProcess
import JetsamPlatform
import JetsamTestKit
import Testing

@testable import JetsamShell

/// A device cgroup with a name unique to this test run, torn down by force (processes SIGKILLed by pid, directories
/// removed deepest first) whatever the test did; on pure cgroup v2 the last teardown also moves this process back
/// out of the `supervisor` leaf the device moved it into (``SupervisorLeaf``).
final class ScratchDevice {
  let layout: CgroupLayout
  let device: DeviceCgroup
  private var children: [pid_t] = []

  init(_ label: String) throws {
    layout = try CgroupLayout.detect()
    let name = "jetsam-test-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    device = try SupervisorLeaf.shared.createDevice(layout: layout, name: name)
  }

  /// Starts `/bin/sh -c script` (a child of the test process, reaped in ``tearDown()``).
  func startShell(_ script: String) throws -> pid_t {
    let pid = try spawnShell(script)
    children.append(pid)
    return pid
  }

  /// Starts a shell that first joins `app` (every v1 `cgroup.procs` and the cgroup2 one), then runs `script`.
  func startInApp(_ app: AppCgroup, _ script: String) throws -> pid_t {
    let files = app.joinProcsFiles + [app.unifiedDirectory + "/cgroup.procs"]
    let join = files.map { "echo $$ > '\($0)' || exit 126" }.joined(separator: "; ")
    let pid = try startShell("\(join); \(script)")
    // A process that dies at once (a memory hog under a small cap) may be gone before it is seen: the callers
    // check how it ended.
    let joined = try eventually(timeout: .seconds(5)) { try app.processIDs().contains(pid) || !isAlive(pid) }
    #expect(joined, "process \(pid) never showed up in \(app.unifiedDirectory)")
    return pid
  }

  /// Waits for child `pid` to exit and returns its raw wait status, or nil on timeout.
  func waitForExit(_ pid: pid_t, timeout: Duration = .seconds(20)) -> Int32? {
    let deadline = ContinuousClock.now + timeout
    var status: Int32 = 0
    while ContinuousClock.now < deadline {
      let result = waitpid(pid, &status, WNOHANG)
      if result == pid {
        children.removeAll { $0 == pid }
        return status
      }
      if result < 0 { return nil }
      usleep(5_000)
    }
    return nil
  }

  /// Kills and reaps every child, kills whatever else is in the device's directories, and removes them all.
  func tearDown() {
    for pid in children { kill(pid, SIGKILL) }
    for pid in children {
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
    }
    children.removeAll()
    for directory in device.directories {
      do { try removeCgroupTree(directory) } catch { Issue.record("\(error)") }
    }
    SupervisorLeaf.shared.deviceRemoved()
  }
}

/// Starts `/bin/sh -c script` with default signal dispositions and an empty signal mask.
func spawnShell(_ script: String) throws -> pid_t {
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var empty = sigset_t()
  sigemptyset(&empty)
  var all = sigset_t()
  sigfillset(&all)
  posix_spawnattr_setsigmask(&attributes, &empty)
  posix_spawnattr_setsigdefault(&attributes, &all)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
  let strings: [String] = ["/bin/sh", "-c", script]
  let arguments: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
  defer { for argument in arguments { free(argument) } }
  var pid: pid_t = 0
  let result = posix_spawn(&pid, "/bin/sh", nil, &attributes, arguments, environ)
  if result != 0 { throw SystemError(code: result, "posix_spawn /bin/sh -c \(script)") }
  return pid
}

/// `poll(2)` on one descriptor; returns the `revents`, 0 on timeout.
func pollDescriptor(_ descriptor: FileDescriptor, events: Int16, timeout: Duration) -> Int16 {
  var entry = pollfd(fd: descriptor.rawValue, events: events, revents: 0)
  let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
  let result = poll(&entry, 1, milliseconds)
  return result > 0 ? entry.revents : 0
}

/// Whether a wait status says "killed by `signal`".
func killedBySignal(_ status: Int32, _ signal: Int32) -> Bool { status & 0x7f == signal }

let mebibyte: Int64 = 1 << 20

/// Whether `/var/tmp` is on a disk, where writing a big file under a small memory cap stalls on writeback (memory
/// pressure); on tmpfs or overlayfs (the cgroup v2 VM) the pages are shmem and the writer is OOM-killed instead.
let varTmpIsDiskBacked: Bool = {
  guard let type = try? FileSystemType(of: "/var/tmp") else { return false }
  return type != .tmpfs && type != .overlayfs
}()
