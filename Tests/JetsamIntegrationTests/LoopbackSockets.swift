import Glibc
import JetsamPlatform

/// The test's side of loopback TCP: a server of its own, and clients of an app's listeners. Every wait is bounded by
/// poll(2), so that a test fails rather than hangs.
enum LoopbackSockets {
  /// A listening socket on 127.0.0.1 (a free port); returns its descriptor and port.
  static func listen() throws -> (fd: FileDescriptor, port: UInt16) { try LoopbackListener.bind(listening: 4) }

  /// Accepts one connection on `listener`, waiting at most `seconds`.
  static func accept(_ listener: FileDescriptor, seconds: Double = 15) throws -> FileDescriptor {
    try waitReadable(listener, seconds: seconds, "accept")
    let fd = Glibc.accept(listener.rawValue, nil, nil)
    guard fd >= 0 else { throw SystemError.current("accept") }
    return FileDescriptor(rawValue: fd)
  }

  /// Connects to `host` (`127.0.0.1` or `::1`) at `port`: the connection, or the error (`ECONNREFUSED` when nothing
  /// listens there).
  static func connect(_ host: String, _ port: UInt16) -> Result<FileDescriptor, SystemError> {
    let family = host.contains(":") ? AF_INET6 : AF_INET
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failure(.current("socket")) }
    var storage = sockaddr_storage()
    let length: Int
    if family == AF_INET6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = port.bigEndian
      _ = inet_pton(AF_INET6, host, &address.sin6_addr)
      withUnsafeBytes(of: address) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
      length = MemoryLayout<sockaddr_in6>.size
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr(host)
      withUnsafeBytes(of: address) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
      length = MemoryLayout<sockaddr_in>.size
    }
    let connected = withUnsafePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(length)) == 0 }
    }
    guard connected else {
      let error = SystemError.current("connect [\(host)]:\(port)")
      close(fd)
      return .failure(error)
    }
    return .success(FileDescriptor(rawValue: fd))
  }

  /// What `fd` reads within `seconds` until the peer closes or the text holds `until`: the text, or the error a read
  /// ended with (`ECONNRESET` when the peer reset the connection).
  static func read(_ fd: FileDescriptor, until: String? = nil, seconds: Double = 15) -> Result<String, SystemError> {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      do {
        try waitReadable(fd, seconds: seconds, "read")
      } catch {
        return .failure(error)
      }
      let count = Glibc.read(fd.rawValue, &buffer, buffer.count)
      if count < 0 { return .failure(.current("read")) }
      bytes += buffer[..<max(count, 0)]
      let text = String(decoding: bytes, as: UTF8.self)
      if count == 0 || until.map(text.contains) == true { return .success(text) }
    }
  }

  /// An HTTP/1.0 GET of `/` on 127.0.0.1:`port`: its whole answer, or the error (`ECONNREFUSED`: nothing listens).
  static func get(port: UInt16) -> Result<String, SystemError> {
    connect("127.0.0.1", port).flatMap { fd in
      defer { fd.close() }
      let request = Array("GET / HTTP/1.0\r\n\r\n".utf8)
      guard Glibc.write(fd.rawValue, request, request.count) == request.count else {
        return .failure(.current("write"))
      }
      return read(fd)
    }
  }

  private static func waitReadable(_ fd: FileDescriptor, seconds: Double, _ what: String) throws(SystemError) {
    var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, Int32(seconds * 1000))
    if ready < 0 { throw .current("poll") }
    if ready == 0 { throw SystemError(code: ETIMEDOUT, "\(what): nothing within \(seconds) s") }
  }
}
