import Glibc
import JetsamPlatform

/// Which sockets processes hold: the inodes their descriptors point at (`/proc/PID/fd/N` → `socket:[INODE]`), which
/// is how inet_diag's dumps (`idiag_inode`) name the socket a process holds. Every kind of socket has one (Unix ones
/// too); only those an inet_diag dump also lists are network sockets.
public enum SocketInodes {
  /// The socket inodes of each of `pids`, with the first of them holding each (a process gone meanwhile holds none).
  static func held(by pids: [Int32]) -> [UInt64: Int32] {
    var holders: [UInt64: Int32] = [:]
    for pid in pids {
      for inode in of(process: "\(pid)") where holders[inode] == nil { holders[inode] = pid }
    }
    return holders
  }

  /// The socket inodes of `/proc/PROCESS/fd` (`self`, or a pid): jetsamd's are the ones kept.
  public static func of(process: String) -> Set<UInt64> {
    let directory = "/proc/\(process)/fd"
    guard let entries = try? directoryEntries(directory) else { return [] }
    var inodes = Set<UInt64>()
    for entry in entries {
      if let target = link(directory + "/" + entry.name), let inode = inode(ofLink: target) { inodes.insert(inode) }
    }
    return inodes
  }

  /// The inodes of the TCP and UDP sockets (IPv4 and IPv6) of the network namespace `pid` is in, as its
  /// `/proc/PID/net/{tcp,tcp6,udp,udp6}` list them: which of a process's sockets are network sockets, read without
  /// netlink, and in the process's namespace even when jetsamd is in another one.
  static func network(seenBy pid: Int32) -> Set<UInt64> {
    var inodes = Set<UInt64>()
    for table in ["tcp", "tcp6", "udp", "udp6"] {
      guard let text = try? readTextFile("/proc/\(pid)/net/\(table)") else { continue }
      inodes.formUnion(networkInodes(inTable: text))
    }
    return inodes
  }

  /// The `inode` column of a `/proc/net/tcp`-style table (the tenth field of each line after the header).
  static func networkInodes(inTable text: String) -> Set<UInt64> {
    var inodes = Set<UInt64>()
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.count > 9, let inode = UInt64(fields[9]), inode != 0 { inodes.insert(inode) }
    }
    return inodes
  }

  /// The network namespace a process is in (`net:[4026531833]`), nil if it cannot be read.
  static func networkNamespace(of process: String) -> String? { link("/proc/\(process)/ns/net") }

  /// `socket:[1234]` → 1234; nil for a link to anything else.
  static func inode(ofLink target: String) -> UInt64? {
    guard target.hasPrefix("socket:["), target.hasSuffix("]") else { return nil }
    return UInt64(target.dropFirst("socket:[".count).dropLast())
  }

  private static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let length = readlink(path, &buffer, buffer.count)
    // A socket's link is short: a longer one is some file's path, of no interest here.
    guard length > 0, length < buffer.count else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
