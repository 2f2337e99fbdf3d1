import Foundation
import Glibc
import JetsamCore
import JetsamTestTraits
import Testing

@testable import JetsamShell

/// Finding the file locks of a process: the fdinfo lines, and real locks of all three kinds taken by this process.
@Suite(.offThePool) struct LockInspectorTests {
  @Test("fdinfo lock lines: POSIX, flock and OFD; leases and waiters left out")
  func parsesFDInfo() {
    let text = """
      pos:\t0
      flags:\t0100002
      lock:\t1: POSIX  ADVISORY  WRITE 4242 08:01:1234 0 EOF
      lock:\t2: FLOCK  ADVISORY  READ  4243 08:01:1234 0 EOF
      lock:\t3: OFDLCK ADVISORY  WRITE -1 08:01:1234 0 EOF
      lock:\t4: LEASE  ACTIVE    READ  4244 08:01:1234 0 EOF
      lock:\t5: -> POSIX  ADVISORY  WRITE 4245 08:01:1234 0 EOF
      """
    let locks = LockInspector.parseFDInfo(text)
    #expect(locks.map(\.type) == ["posix", "flock", "ofd"])
    #expect(locks.map(\.access) == ["write", "read", "write"])
    #expect(locks.map(\.pid) == [4242, 4243, -1])
  }

  @Test("/proc/locks names the holders to look at; an OFD lock or a flock whose taker is gone names nobody")
  func systemLocks() {
    let alive: (pid_t) -> Bool = { $0 != 77 }
    let named = LockInspector.parseSystemLocks(
      """
      1: POSIX  ADVISORY  WRITE 4242 08:01:1234 0 EOF
      1: -> POSIX  ADVISORY  WRITE 5555 08:01:1234 0 EOF
      2: FLOCK  ADVISORY  WRITE 4243 08:01:99 0 EOF
      """, isAlive: alive)
    #expect(named == .init(any: true, holders: [4242, 4243], unattributed: false), "a waiter holds nothing")
    #expect(LockInspector.parseSystemLocks("", isAlive: alive) == .init())
    let ofd = LockInspector.parseSystemLocks("3: OFDLCK ADVISORY  READ  -1 08:01:1234 0 EOF\n", isAlive: alive)
    #expect(ofd.any && ofd.unattributed)
    let goneTaker = LockInspector.parseSystemLocks("4: FLOCK  ADVISORY  WRITE 77 08:01:1 0 EOF\n", isAlive: alive)
    #expect(goneTaker.unattributed && goneTaker.holders.isEmpty)
  }

  @Test("a holder's cgroup is the last component of its cgroup2 path; the root is nobody's, no cgroup2 line unknown")
  func holderCgroupName() {
    #expect(LockInspector.unifiedCgroupName("4:memory:/a/b\n0::/jetsam.slice/device/mail\n") == "mail")
    #expect(LockInspector.unifiedCgroupName("0::/\n") == "")
    #expect(LockInspector.unifiedCgroupName("4:memory:/a/b\n") == nil)
  }

  @Test("only an app whose cgroup holds a lock's holder is looked at; with a holder unknown, every app is")
  func appsAmongHolders() throws {
    let held = LockInspector.SystemLocks(any: true, holders: [4242], unattributed: false)
    #expect(LockInspector.mayHoldLocks(appNamed: "mail", system: held, holderCgroupNames: ["mail", "device"]))
    #expect(!LockInspector.mayHoldLocks(appNamed: "notes", system: held, holderCgroupNames: ["mail", "device"]))
    #expect(LockInspector.mayHoldLocks(appNamed: "notes", system: held, holderCgroupNames: nil))
    var ofd = held
    ofd.unattributed = true
    #expect(LockInspector.mayHoldLocks(appNamed: "notes", system: ofd, holderCgroupNames: []))
    #expect(!LockInspector.mayHoldLocks(appNamed: "mail", system: LockInspector.SystemLocks(), holderCgroupNames: nil))
    // Read for real: this process's cgroup, and a holder gone since names nothing.
    let text = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
    let own = try #require(LockInspector.unifiedCgroupName(text))
    #expect(LockInspector.cgroupNames(of: [getpid()]) == [own])
    #expect(LockInspector.cgroupNames(of: [Int32.max - 1]) == [])
  }

  @Test("real locks of every kind are found with their file and holder, OFD ones too (pid -1 in /proc/locks)")
  func findsRealLocks() throws {
    let directory = NSTemporaryDirectory() + "jetsam-locks-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func open(_ name: String) -> Int32 { Glibc.open(directory + "/" + name, O_RDWR | O_CREAT, 0o600) }
    let posix = open("posix")
    let byFlock = open("flock")
    let ofd = open("ofd")
    defer { for fd in [posix, byFlock, ofd] { close(fd) } }
    #expect(LockInspector().locks(heldBy: [getpid()]).allSatisfy { !$0.path.hasPrefix(directory) })
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    #expect(fcntl(posix, F_SETLK, &lock) == 0)
    #expect(Self.sharedFlock(byFlock) == 0)
    // F_OFD_SETLK (37): not in Swift's Glibc module.
    #expect(fcntl(ofd, 37, &lock) == 0)
    let found = LockInspector().locks(heldBy: [getpid()]).filter { $0.path.hasPrefix(directory) }
    #expect(
      found == [
        HeldLock(path: directory + "/flock", type: "flock", access: "read", pid: getpid()),
        HeldLock(path: directory + "/ofd", type: "ofd", access: "write", pid: getpid()),
        HeldLock(path: directory + "/posix", type: "posix", access: "write", pid: getpid()),
      ])
  }

  /// flock(2) for a shared lock (apart, since the struct of fcntl locks shares its name).
  static func sharedFlock(_ fd: Int32) -> Int32 { flock(fd, LOCK_SH) }
}
