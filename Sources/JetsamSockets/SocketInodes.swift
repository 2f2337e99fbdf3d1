import CJetsamShim
import Glibc
import JetsamPlatform

/// Which sockets processes hold: the inodes their descriptors point at (`/proc/PID/fd/N` → `socket:[INODE]`), which
/// is how inet_diag's dumps (`idiag_inode`) name the socket a process holds, and each one's protocol as the kernel
/// names it in the socket's `system.sockprotoname` attribute (`TCP`, `UDPv6`, `UNIX-STREAM`, …): one getxattr per
/// socket, where the /proc/net/tcp tables would walk the whole connection hash (milliseconds per read on a large
/// machine).
public enum SocketInodes {
  /// The protocols jetsam-sockets destroys: TCP and UDP, IPv4 and IPv6.
  static let networkProtocols: Set<String> = ["TCP", "TCPv6", "UDP", "UDPv6"]

  /// The network sockets of each of `pids` (and those whose protocol could not be read: inet_diag's dump decides),
  /// with the first of them holding each (a process gone meanwhile holds none).
  static func network(heldBy pids: [Int32]) -> [UInt64: Int32] {
    var holders: [UInt64: Int32] = [:]
    for pid in pids {
      let inodes = (try? network(process: "\(pid)")) ?? []
      for inode in inodes where holders[inode] == nil { holders[inode] = pid }
    }
    return holders
  }

  /// The socket inodes of `/proc/PROCESS/fd` (`self`, or a pid): jetsamd's are the ones kept.
  public static func of(process: String) -> Set<UInt64> {
    (try? sockets(process: process, keeping: { _ in true })) ?? []
  }

  /// The network sockets of `/proc/PROCESS/fd` by inode, with any whose protocol cannot be read (a socket closed
  /// meanwhile is left out). Throws when the directory cannot be read (ENOENT: the process is gone; EACCES: it is
  /// not this process's to look into).
  static func network(process: String) throws(SystemError) -> Set<UInt64> {
    try sockets(process: process) { path in protocolName(ofSocketAt: path).map(networkProtocols.contains) ?? true }
  }

  /// The inodes of the sockets of `/proc/PROCESS/fd` whose descriptor path `keep` admits.
  private static func sockets(process: String, keeping keep: (String) -> Bool) throws(SystemError) -> Set<UInt64> {
    let directory = "/proc/\(process)/fd"
    let entries = try directoryEntries(directory)
    var inodes = Set<UInt64>()
    for entry in entries {
      let path = directory + "/" + entry.name
      if let target = try descriptorLink(path), let inode = inode(ofLink: target), keep(path) { inodes.insert(inode) }
    }
    return inodes
  }

  /// Where a descriptor of `/proc/PID/fd` leads; nil for one closed meanwhile or a long path (no socket). Throws
  /// when it may not be read: with CAP_DAC_OVERRIDE but not CAP_SYS_PTRACE (jetsamd's sandboxed unit) the listing
  /// succeeds for another user's process, or a root process with more capabilities, while each readlink fails with
  /// EACCES, and taking that for "no descriptors" would skip the defunct of a connection jetsamd cannot see.
  private static func descriptorLink(_ path: String) throws(SystemError) -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let length = readlink(path, &buffer, buffer.count)
    if length < 0 {
      if errno == ENOENT { return nil }
      throw SystemError.current("readlink \(path)")
    }
    guard length < buffer.count else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The protocol of the socket a descriptor path leads to (`TCP`, `UNIX-STREAM`); nil when it cannot be read.
  static func protocolName(ofSocketAt path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 32)
    let length = getxattr(path, "system.sockprotoname", &buffer, buffer.count)
    guard length > 0 else { return nil }
    return String(decoding: buffer[..<length].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
