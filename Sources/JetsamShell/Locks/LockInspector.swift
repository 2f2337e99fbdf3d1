import Glibc
import JetsamCore
import JetsamPlatform

/// Finds the file locks (POSIX, flock and OFD) a set of processes holds.
///
/// `/proc/locks` lists every lock on the system, but not always by its holder: an OFD lock shows pid -1 and a
/// flock lock the pid that took it, which may have exited since. The `lock:` lines of `/proc/PID/fdinfo/FD` name the
/// descriptor a lock was taken through, so the holder and the file (the descriptor's link) are both known. The
/// system-wide list, read once per loop turn, decides whose descriptors need looking at: with no lock on the system
/// (the common case) nobody's, and otherwise only those of apps among its holders, unless some lock has no living
/// holder to name (OFD, or a flock whose taker is gone), when every app asked about is looked at.
///
/// Which apps are among the holders is told by each holder's own cgroup (`/proc/PID/cgroup`), read once per turn, not
/// by listing every app's processes: there is always a lock on the system while jetsamd runs (its own, on its state
/// directory), and a batch suspension of a thousand apps then listed a thousand cgroups for nothing.
final class LockInspector {
  /// What `/proc/locks` said in this loop turn (cleared by ``forgetTurn()``): a batch suspension of a thousand
  /// apps reads it once.
  private var system: SystemLocks?
  /// This turn's names of the cgroups the holders are in (nil until asked; `.some(nil)`: not all could be told).
  private var holderCgroupNames: Set<String>??

  /// The holders `/proc/locks` names.
  struct SystemLocks: Equatable {
    /// Whether it lists any lock at all.
    var any = false
    /// The processes it names as holders (POSIX owners, flock takers still alive).
    var holders: Set<pid_t> = []
    /// Whether some lock names no living holder: an OFD lock (pid -1), or a flock whose taker has exited.
    var unattributed = false
  }

  /// Whether `pids` may hold a lock, as far as this turn's `/proc/locks` tells (cheap: no per-process read).
  func mayHoldLocks(_ pids: [pid_t]) -> Bool {
    let system = systemLocks
    guard system.any else { return false }
    return system.unattributed || pids.contains { system.holders.contains($0) }
  }

  /// Whether app `name`'s processes may hold a lock, as far as this turn's `/proc/locks` and its holders' cgroups
  /// tell: false when no holder is in a cgroup called `name` (an app's cgroup is named after it), true when some lock
  /// has no living holder or a holder's cgroup cannot be read.
  func mayHoldLocks(appNamed name: String) -> Bool {
    let system = systemLocks
    if system.any && !system.unattributed && holderCgroupNames == nil {
      holderCgroupNames = .some(Self.cgroupNames(of: system.holders))
    }
    return Self.mayHoldLocks(appNamed: name, system: system, holderCgroupNames: holderCgroupNames ?? nil)
  }

  /// ``mayHoldLocks(appNamed:)`` from what was read: `holderCgroupNames` nil when not all holders could be told.
  static func mayHoldLocks(appNamed name: String, system: SystemLocks, holderCgroupNames: Set<String>?) -> Bool {
    guard system.any else { return false }
    guard !system.unattributed, let holderCgroupNames else { return true }
    return holderCgroupNames.contains(name)
  }

  /// The last component of each process's cgroup2 path (`/proc/PID/cgroup`'s `0::` line); nil when one cannot be
  /// read (it may be an app's whose cgroup is unknown).
  static func cgroupNames(of pids: Set<pid_t>) -> Set<String>? {
    var names = Set<String>()
    for pid in pids {
      guard let text = try? readTextFile("/proc/\(pid)/cgroup", capacity: 4096), let name = unifiedCgroupName(text)
      else {
        // Gone since /proc/locks was read: it holds nothing now. Any other failure leaves the holder unknown.
        if kill(pid, 0) != 0 && errno == ESRCH { continue }
        return nil
      }
      names.insert(name)
    }
    return names
  }

  /// The last component of the cgroup2 path in a `/proc/PID/cgroup` text (`0::/jetsam.slice/device/mail` → `mail`;
  /// the root cgroup, where no app is, → ""); nil without a cgroup2 line.
  static func unifiedCgroupName(_ text: String) -> String? {
    for line in text.split(separator: "\n") where line.hasPrefix("0::") {
      return String(line.dropFirst(3).split(separator: "/").last ?? "")
    }
    return nil
  }

  /// This turn's `/proc/locks`, read the first time it is asked for.
  private var systemLocks: SystemLocks {
    if let system { return system }
    let read = Self.readSystemLocks()
    system = read
    return read
  }

  /// The locks `pids` hold, each once, sorted.
  func locks(heldBy pids: [pid_t]) -> [HeldLock] {
    guard mayHoldLocks(pids) else { return [] }
    var found = Set<HeldLock>()
    for pid in pids { found.formUnion(Self.locks(heldBy: pid)) }
    return found.sorted { ($0.path, $0.pid, $0.type, $0.access) < ($1.path, $1.pid, $1.type, $1.access) }
  }

  /// The locks app `name`'s processes hold; they are listed (`processIDs`) only when a lock's holder may be one of
  /// them (``mayHoldLocks(appNamed:)``), and none is held when they cannot be.
  func locks(ofApp name: String, processIDs: () throws -> [pid_t]) -> [HeldLock] {
    guard mayHoldLocks(appNamed: name) else { return [] }
    let pids = (try? processIDs()) ?? []
    return pids.isEmpty ? [] : locks(heldBy: pids)
  }

  /// The locks each of `apps` holds, from `/proc/locks` read afresh once for all of them rather than this turn's
  /// reading: a stop seen complete is judged by what is held once it is, not by what was held before.
  func locksNow(of apps: [(name: String, processIDs: () throws -> [pid_t])]) -> [[HeldLock]] {
    forgetTurn()
    return apps.map { locks(ofApp: $0.name, processIDs: $0.processIDs) }
  }

  /// Forgets what was read this loop turn.
  func forgetTurn() {
    system = nil
    holderCgroupNames = nil
  }

  /// The holders `/proc/locks` names; when it cannot be read, every lock counts as unattributed (every app's
  /// descriptors are then read).
  static func readSystemLocks() -> SystemLocks {
    guard let text = try? readTextFile("/proc/locks") else { return SystemLocks(any: true, unattributed: true) }
    return parseSystemLocks(text, isAlive: { kill($0, 0) == 0 || errno == EPERM })
  }

  /// `/proc/locks`' lines, e.g. `1: POSIX  ADVISORY  WRITE 4242 08:01:1234 0 EOF`; waiters (`->`) hold nothing.
  static func parseSystemLocks(_ text: String, isAlive: (pid_t) -> Bool) -> SystemLocks {
    var locks = SystemLocks()
    for line in text.split(separator: "\n") {
      guard let lock = LockLine(line) else { continue }
      locks.any = true
      switch lock.type {
      case "POSIX":
        locks.holders.insert(lock.pid)
      case "FLOCK":
        if lock.pid > 0 && isAlive(lock.pid) { locks.holders.insert(lock.pid) } else { locks.unattributed = true }
      default:
        // OFDLCK (pid -1), leases and anything newer: whose they are only the descriptors tell.
        locks.unattributed = true
      }
    }
    return locks
  }

  /// One held lock as the kernel writes it, in `/proc/locks` and after `lock:` in fdinfo:
  /// `1: POSIX  ADVISORY  WRITE 4242 08:01:1234 0 EOF` (entry number, type, ADVISORY/MANDATORY, access, pid,
  /// device:inode, start, end).
  struct LockLine {
    var type: Substring
    var access: Substring
    var pid: pid_t

    /// Nil for a waiter (`1: -> POSIX …`, which holds nothing) and for a line that does not parse.
    init?(_ text: Substring) {
      let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard words.count >= 5, words[0].hasSuffix(":"), words[1] != "->", let pid = pid_t(words[4]) else { return nil }
      type = words[1]
      access = words[3]
      self.pid = pid
    }
  }

  /// The locks process `pid` holds through its descriptors (none if it is gone or cannot be read).
  static func locks(heldBy pid: pid_t) -> [HeldLock] {
    guard let entries = try? directoryEntries("/proc/\(pid)/fdinfo") else { return [] }
    var locks: [HeldLock] = []
    for entry in entries {
      guard let text = try? readTextFile("/proc/\(pid)/fdinfo/\(entry.name)", capacity: 4096), text.contains("lock:")
      else { continue }
      let held = parseFDInfo(text)
      guard !held.isEmpty, let path = link("/proc/\(pid)/fd/\(entry.name)") else { continue }
      for lock in held {
        // A POSIX lock names its owner; an OFD or flock lock belongs to whoever has the descriptor.
        let holder = lock.type == "posix" && lock.pid > 0 ? lock.pid : pid
        locks.append(HeldLock(path: path, type: lock.type, access: lock.access, pid: holder))
      }
    }
    return locks
  }

  /// The locks in an fdinfo file's `lock:` lines, e.g. `lock:\t1: POSIX  ADVISORY  WRITE 4242 08:01:1234 0 EOF`;
  /// leases and lines that do not parse are left out.
  static func parseFDInfo(_ text: String) -> [(type: String, access: String, pid: Int32)] {
    var locks: [(type: String, access: String, pid: Int32)] = []
    for line in text.split(separator: "\n") where line.hasPrefix("lock:") {
      guard let lock = LockLine(line.dropFirst("lock:".count)) else { continue }
      let type: String
      switch lock.type {
      case "POSIX": type = "posix"
      case "FLOCK": type = "flock"
      case "OFDLCK": type = "ofd"
      default: continue
      }
      let access: String
      switch lock.access {
      case "READ": access = "read"
      case "WRITE": access = "write"
      default: continue
      }
      locks.append((type, access, lock.pid))
    }
    return locks
  }

  /// Where a descriptor's link points.
  private static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
