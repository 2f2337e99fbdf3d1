import Glibc

/// A TCP socket bound to a port of 127.0.0.1 the kernel picked: what the lab's sockets check serves on, what a
/// scenario's `{port:NAME}` and the tests' free ports are taken from.
public enum LoopbackListener {
  /// A close-on-exec TCP socket bound to 127.0.0.1 on a free port, listening with `backlog` unless nil; its
  /// descriptor (the caller's to close) and port.
  public static func bind(listening backlog: Int32? = 16) throws(SystemError) -> (fd: FileDescriptor, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemError.current("socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
          && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      let error = SystemError.current(backlog == nil ? "binding 127.0.0.1:0" : "listening on 127.0.0.1:0")
      close(fd)
      throw error
    }
    return (FileDescriptor(rawValue: fd), UInt16(bigEndian: address.sin_port))
  }

  /// A port of 127.0.0.1 that was free a moment ago (bound, then let go). Another process may take it before the
  /// caller's program does; the kernel hands out ephemeral ports in turn, so that is unlikely soon after.
  public static func freePort() throws(SystemError) -> UInt16 {
    let (fd, port) = try bind(listening: nil)
    fd.close()
    return port
  }
}
