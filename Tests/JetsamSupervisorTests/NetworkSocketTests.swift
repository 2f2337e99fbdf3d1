import Glibc
import JetsamCore
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
    #expect(SocketInodes.held(by: [getpid()]).values.allSatisfy { $0 == getpid() })
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

/// The network socket tables of /proc, as the defuncter reads them to tell network sockets from the rest.
@Suite("Network socket tables")
struct NetworkSocketTableTests {
  @Test("the inode column of /proc/net/tcp and udp lines; time-wait entries (inode 0) and the header are skipped")
  func inodesOfATable() {
    let table = """
        sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
         0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 665 1 0000 100 0 0 10 0
         1: 0100007F:9C40 0100007F:1F90 06 00000000:00000000 03:00000F3C 00000000     0        0 0 3 0000
         2: 0100007F:1F90 0100007F:9C41 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000 20 4 30 10 -1
      """
    #expect(SocketInodes.networkInodes(inTable: table) == [665, 4242])
  }

  @Test("this process's own table lists a TCP listener it opens, by the inode its descriptor links to")
  func ownListener() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let listening = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(fd, 1) == 0
      }
    }
    #expect(listening)
    let mine = SocketInodes.held(by: [getpid()]).keys
    let network = SocketInodes.network(seenBy: getpid())
    #expect(mine.contains { network.contains($0) }, "the listener is among this process's network sockets")
    #expect(SocketInodes.networkNamespace(of: "self")?.hasPrefix("net:[") == true)
  }
}
