import CJetsamShim
import Glibc
import JetsamPlatform

/// Unix-domain sockets by path: the control socket and the spawner service's.
package enum UnixSocket {
  /// `SOCK_SEQPACKET`, from the shim: the Swift compiler now and then fails to find glibc's socket type constants
  /// in builds that pass -Werror to the clang importer (make's).
  package static let seqpacket = __socket_type(rawValue: UInt32(jetsam_sock_seqpacket()))

  /// A new socket of `type` (`SOCK_STREAM`, `SOCK_SEQPACKET`), non-blocking and close-on-exec.
  package static func make(_ type: __socket_type) throws(SystemError) -> FileDescriptor {
    let fd = try systemCall("socket") {
      socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    return FileDescriptor(rawValue: fd)
  }

  /// The address of the socket file at `path`.
  package static func address(_ path: String) throws(SystemError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw SystemError(code: ENAMETOOLONG, "socket path \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    return address
  }

  /// Binds `fd` to a new socket file at `path`.
  package static func bind(_ fd: FileDescriptor, to path: String) throws(SystemError) {
    var address = try address(path)
    try systemCall("bind \(path)") {
      withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
    }
  }

  /// Connects `fd` to the socket at `path`: 0, or -1 with `errno` (`EINPROGRESS` never happens for a Unix
  /// socket; `EAGAIN` means its backlog is full).
  package static func connect(_ fd: FileDescriptor, to path: String) throws(SystemError) -> Int32 {
    var address = try address(path)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}
