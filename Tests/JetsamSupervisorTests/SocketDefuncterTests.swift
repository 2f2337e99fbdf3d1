import Glibc
import JetsamCore
import JetsamPlatform
import Testing

@testable import JetsamShell

/// How a suspended app's sockets are destroyed, without root or a kernel: the processes listed on the loop, the
/// destruction handed to a worker, its outcome handed back; and how the kernel's descriptions are worded.
@Suite("Socket defuncter")
struct SocketDefuncterTests {
  /// A destruction that records whom it was asked about.
  final class FakeDestruction: @unchecked Sendable {
    var asked: [[Int32]] = []
    var outcome = NetworkSocketDestruction.Outcome()
    var destroy: @Sendable ([Int32]) -> NetworkSocketDestruction.Outcome {
      { pids in
        self.asked.append(pids)
        return self.outcome
      }
    }
  }

  @Test("the app's processes go to the worker, and what it destroyed comes back")
  func destroysOnTheWorker() {
    let worker = FakeBackground()
    let destruction = FakeDestruction()
    destruction.outcome.sockets = [
      DefunctedSocket(protocol: "udp", local: "127.0.0.1:5353", remote: "0.0.0.0:0", state: "unconnected", pid: 11)
    ]
    let defuncter = SocketDefuncter(worker: worker, destroy: destruction.destroy)
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    defuncter.defunct(processes: { [10, 11] }, then: { outcomes.append($0) })
    #expect(worker.runs == 1 && destruction.asked == [[10, 11]])
    #expect(outcomes == [destruction.outcome])
  }

  @Test("processes that cannot be listed are the problem reported; no process, no work")
  func listingFails() {
    let worker = FakeBackground()
    let destruction = FakeDestruction()
    let defuncter = SocketDefuncter(worker: worker, destroy: destruction.destroy)
    var outcomes: [NetworkSocketDestruction.Outcome] = []
    defuncter.defunct(
      processes: { throw SystemError(code: ENOENT, "open cgroup.procs") }, then: { outcomes.append($0) })
    defuncter.defunct(processes: { [] }, then: { outcomes.append($0) })
    #expect(worker.runs == 0 && destruction.asked.isEmpty)
    #expect(outcomes.map(\.problem) == ["listing its processes: open cgroup.procs: No such file or directory", nil])
    #expect(outcomes.allSatisfy { $0.sockets.isEmpty })
  }

  @Test("a socket's descriptor link names its inode; any other link names none")
  func inodes() {
    #expect(SocketInodes.inode(ofLink: "socket:[123456]") == 123456)
    #expect(SocketInodes.inode(ofLink: "pipe:[123456]") == nil)
    #expect(SocketInodes.inode(ofLink: "/tmp/socket:[1]") == nil)
    #expect(SocketInodes.inode(ofLink: "socket:[]") == nil)
    // jetsamd's own: a process always holds some descriptor, and a test process no socket it did not open.
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    #expect(!SocketInodes.own.isEmpty)
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
}

/// `defunctSockets` and `socketsDefuncted` carried out as the daemon carries them out (``ActionDispatch``).
@Suite("Socket defunct actions")
struct SocketDefunctActionTests {
  @Test("defunctSockets destroys the sockets of every process of the app's cgroup and reports what it destroyed")
  func carriedOut() throws {
    let fixture = try SupervisorFixture()
    let pid = try fixture.launch("a")
    let destruction = SocketDefuncterTests.FakeDestruction()
    let socket = DefunctedSocket(
      protocol: "tcp", local: "127.0.0.1:40000", remote: "127.0.0.1:80", state: "established", pid: pid + 500)
    destruction.outcome.sockets = [socket]
    fixture.supervisor.suspender.sockets = SocketDefuncter(worker: FakeBackground(), destroy: destruction.destroy)
    fixture.clearReports()
    fixture.perform(.defunctSockets(app: "a", pid: pid))
    #expect(destruction.asked == [[pid, pid + 500]])
    guard case .socketsDefuncted("a", pid, [socket], nil, _)? = fixture.reported.last else {
      Issue.record("no socketsDefuncted: \(fixture.reported)")
      return
    }
    // An earlier launch's pid asks nothing.
    fixture.perform(.defunctSockets(app: "a", pid: pid + 1))
    #expect(destruction.asked.count == 1)
    fixture.perform(.socketsDefuncted(app: "a", pid: pid, sockets: [socket], problem: nil))
    #expect(fixture.announcements.told.last == "sockets a 1")
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
