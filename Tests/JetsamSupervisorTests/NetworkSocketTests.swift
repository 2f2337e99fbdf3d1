import Glibc
import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamSockets

/// How `jetsam-sockets` tells sockets apart and words them, without root: descriptor links, the kernel's
/// descriptions, and the JSON lines it prints for jetsamd.
@Suite("Network sockets")
struct NetworkSocketTests {
  @Test("a socket's descriptor link names its inode; any other link names none")
  func inodes() {
    #expect(SocketInodes.inode(ofLink: "socket:[123456]") == 123456)
    #expect(SocketInodes.inode(ofLink: "pipe:[123456]") == nil)
    #expect(SocketInodes.inode(ofLink: "/tmp/socket:[1]") == nil)
    #expect(SocketInodes.inode(ofLink: "socket:[]") == nil)
    // A process's own, as jetsamd's are read to be kept: with a socket open, there is one, and a test process holds
    // no socket it did not open.
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    #expect(!SocketInodes.of(process: "self").isEmpty)
    #expect(SocketInodes.network(heldBy: [getpid()]).values.allSatisfy { $0 == getpid() })
  }

  @Test("addresses read as ss writes them: IPv4 host:port, IPv6 in brackets; states by ss's names")
  func descriptions() {
    // 127.0.0.1 and ::1 as inet_diag carries them: network order, in 32-bit words.
    let loopback4 = (UInt32(bigEndian: 0x7F00_0001), UInt32(0), UInt32(0), UInt32(0))
    let loopback6 = (UInt32(0), UInt32(0), UInt32(0), UInt32(bigEndian: 1))
    #expect(
      InetDiagSocket.Entry.endpoint(family: AF_INET, address: loopback4, port: UInt16(8080).bigEndian)
        == "127.0.0.1:8080")
    #expect(
      InetDiagSocket.Entry.endpoint(family: AF_INET6, address: loopback6, port: UInt16(443).bigEndian) == "[::1]:443")
    #expect(InetDiagSocket.Entry.stateName(10, udp: false) == "listen")
    #expect(InetDiagSocket.Entry.stateName(1, udp: false) == "established")
    #expect(InetDiagSocket.Entry.stateName(7, udp: true) == "unconnected")
    #expect(InetDiagSocket.Entry.stateName(1, udp: true) == "established")
    #expect(InetDiagSocket.Entry.stateName(99, udp: false) == "state-99")
  }

  @Test("what jetsam-sockets prints reads back as it was; a line of anything else is a problem")
  func toolOutput() {
    let outcome = NetworkSocketDestruction.Outcome(
      sockets: [
        DefunctedSocket(protocol: "tcp", local: "127.0.0.1:80", remote: "127.0.0.1:4000", state: "established", pid: 7),
        DefunctedSocket(protocol: "udp", local: "[::]:53", remote: "[::]:0", state: "unconnected", pid: 8),
      ],
      problem: "SOCK_DESTROY: Operation not permitted")
    let text = SocketToolOutput.text(of: outcome)
    #expect(text.split(separator: "\n").count == 3 && text.hasSuffix("\n"))
    #expect(SocketToolOutput.outcome(reading: text) == outcome)
    #expect(SocketToolOutput.outcome(reading: "") == NetworkSocketDestruction.Outcome())
    let crashed = SocketToolOutput.outcome(reading: text + "Fatal error: out of memory\n")
    #expect(crashed.sockets == outcome.sockets)
    #expect(
      crashed.problem
        == "SOCK_DESTROY: Operation not permitted; jetsam-sockets said: Fatal error: out of memory")
  }
}

/// How a socket's protocol is told: the kernel's name for it, read from the socket's `system.sockprotoname`
/// attribute through the descriptor's /proc path.
@Suite("Socket protocols")
struct SocketProtocolTests {
  @Test("this process's own sockets by protocol: a TCP listener and a UDP socket are network ones, a Unix pair is not")
  func ownSockets() throws {
    let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(tcp) }
    let udp = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(udp) }
    var pair: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    defer { for fd in pair { close(fd) } }
    let names = [tcp, udp, pair[0]].map { SocketInodes.protocolName(ofSocketAt: "/proc/self/fd/\($0)") }
    #expect(names == ["TCP", "UDPv6", "UNIX-STREAM"])
    #expect(SocketInodes.protocolName(ofSocketAt: "/proc/self/fd/999999") == nil)
    // A socket's inode, as its descriptor link names it.
    let inodes = [tcp, udp, pair[0]].map { fd in
      var status = stat()
      return fstat(fd, &status) == 0 ? UInt64(status.st_ino) : 0
    }
    let network = try SocketInodes.network(process: "self")
    #expect(network.contains(inodes[0]) && network.contains(inodes[1]))
    #expect(!network.contains(inodes[2]), "a Unix socket is not a network one")
    #expect(SocketInodes.networkNamespace(of: "self")?.hasPrefix("net:[") == true)
  }
}

/// The look jetsamd takes before starting `jetsam-sockets` at a suspension: real processes, each holding only the
/// sockets it opened.
@Suite("Network socket presence")
struct NetworkSocketPresenceTests {
  /// A python3 process that closes every descriptor it inherited, opens the sockets `opening` makes (Python), runs
  /// `then`, and says so on its stdout; SIGKILLed and reaped by ``stop()``.
  final class Holder {
    let pid: pid_t
    /// The read end of its stdout, open while it runs (closed early, the rest of its line would kill it: EPIPE).
    private let output: Int32

    init(opening: String, then: String = "") throws {
      var fds: [Int32] = [0, 0]
      guard pipe(&fds) == 0 else { throw SystemError.current("pipe") }
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      output = fds[0]
      let script = """
        import os, socket, time
        os.closerange(3, 65536)
        held = [\(opening)]
        \(then)
        print("ready", flush=True)
        time.sleep(60)
        """
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
      let words: [String] = ["/usr/bin/python3", "-c", script]
      let arguments = words.map { strdup($0) } + [nil]
      defer { for argument in arguments { free(argument) } }
      var pid: pid_t = 0
      let result = posix_spawn(&pid, "/usr/bin/python3", &actions, nil, arguments, environ)
      close(fds[1])
      self.pid = pid
      guard result == 0 else {
        close(output)
        throw SystemError(code: result, "posix_spawn python3")
      }
      // Its line comes once its sockets are open (end of file: it failed).
      var buffer = [UInt8](repeating: 0, count: 16)
      let count = read(output, &buffer, buffer.count)
      guard count > 0 else {
        stop()
        throw SystemError(code: EIO, "python3 opening \(opening) ended before it was ready")
      }
    }

    func stop() {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      close(output)
    }
  }

  @Test("only Unix sockets: none; a TCP listener or a bound UDP socket: it may; a process gone holds none")
  func presence() throws {
    let unix = try Holder(opening: "*socket.socketpair()")
    defer { unix.stop() }
    let tcp = try Holder(opening: "socket.create_server(('127.0.0.1', 0))")
    defer { tcp.stop() }
    let udp = try Holder(
      opening: "socket.socket(socket.AF_INET, socket.SOCK_DGRAM)", then: "held[0].bind(('127.0.0.1', 0))")
    defer { udp.stop() }
    #expect(!NetworkSocketPresence.mayHold([unix.pid]))
    #expect(NetworkSocketPresence.mayHold([tcp.pid]))
    #expect(NetworkSocketPresence.mayHold([udp.pid]))
    #expect(NetworkSocketPresence.mayHold([unix.pid, tcp.pid]))
    let gone = try Holder(opening: "socket.create_server(('127.0.0.1', 0))")
    gone.stop()
    #expect(!NetworkSocketPresence.mayHold([gone.pid, unix.pid]))
    #expect(!NetworkSocketPresence.mayHold([]))
  }
}
