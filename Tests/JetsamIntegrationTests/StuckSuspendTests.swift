import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// One app whose processes cannot stop (held in a freezer: state D on the hybrid layout's v1 freezer) must not
/// stall jetsamd: while its suspend is pending, requests are answered, a pressure crossing still kills a
/// suspended victim, and the systemd watchdog stays fed.
@Suite(
  "An app that cannot stop", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct StuckSuspendTests {
  /// A 1 GiB device: urgent below 500M available, clear from 560M.
  static func config(suspendTimeout: String) -> String {
    """
    {
      device: { ram: "1G", thresholds: {
        warning: { enter: "600M", clear: "650M" },
        urgent: { enter: "500M", clear: "560M" },
        critical: { enter: "100M", clear: "150M" } } },
      suspend: { backgroundGrace: null, timeout: "\(suspendTimeout)" },
    }
    """
  }

  @Test("while one app's suspend is pending, status is answered, a crossing kills a victim, the watchdog is fed")
  func loopKeepsGoing() throws {
    let notify = try NotifySocket()
    defer { notify.close() }
    let daemon = try DaemonHarness(
      config: Self.config(suspendTimeout: "60s"),
      environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
    defer { daemon.stop() }
    let old = try daemon.launch("old", ["alloc", "128", "--hold"])
    let older = try daemon.launch("older", ["alloc", "128", "--hold"])
    let stuck = try daemon.launch("stuck", ["alloc", "8", "--hold"])
    try daemon.waitUntil("the apps to hold their memory") {
      let apps = try daemon.apps()
      return (apps["old"]?.measured.memoryBytes ?? 0) >= 128 << 20
        && (apps["older"]?.measured.memoryBytes ?? 0) >= 128 << 20
        && (apps["stuck"]?.measured.memoryBytes ?? 0) >= 8 << 20
    }
    #expect(try daemon.ctl(["suspend", "older"]).status == 0)
    #expect(try daemon.ctl(["suspend", "old"]).status == 0)
    #expect(processState(pid: older) == "T" && processState(pid: old) == "T")

    // Hold the stuck app where it cannot stop, then ask for its suspension without waiting for the answer.
    let freezer = try HeldProcess(stuck)
    defer { freezer.release() }
    let suspendClient = try daemon.jetsamd.client()
    try suspendClient.write(raw: try suspendClient.encode(ControlRequest(verb: .suspend, app: "stuck")))
    usleep(100_000)
    #expect(processState(pid: stuck) != "T", "the held process stopped: the test proves nothing")

    // The loop answers at once. (The stall this guards against took seconds; the bound is only generous.)
    let statusClient = try daemon.jetsamd.client()
    let asked = Date()
    let status = try statusClient.send(ControlRequest(verb: .status))
    let answeredIn = Date().timeIntervalSince(asked)
    #expect(status.ok && status.status != nil)
    #expect(answeredIn < 0.5 * TestTiming.slowdown, "status took \(answeredIn) s while a suspend was pending")

    // The watchdog pings go on (every 100 ms for WATCHDOG_USEC=200 ms).
    notify.drain()
    usleep(UInt32(700_000 * TestTiming.slowdown))
    let pings = notify.drain().filter { $0.contains("WATCHDOG=1") }.count
    #expect(pings >= 3, "only \(pings) watchdog pings in \(0.7 * TestTiming.slowdown) s while a suspend was pending")

    // A real crossing: charge enough to fall below urgent, and little enough that one victim clears it.
    let available = try daemon.ctlJSON(PressureInfo.self, ["pressure"]).availableBytes
    let balloon = available - (470 << 20)
    #expect(balloon > 0)
    #expect(try daemon.ctl(["pressure", "allocate", String(balloon)]).status == 0)
    let records = try daemon.waitForRecords(1)
    #expect(records.map(\.app) == ["older"], "the longest-suspended app dies first: \(records.map(\.app))")
    #expect(records.first?.cause.reason == .memoryPressure)
    #expect(records.first?.cause.killSignalledNanoseconds != nil)
    #expect(!isAlive(older))
    #expect(isAlive(old) && isAlive(stuck))
    // Still pending: the app is shown suspended, its processes not yet stopped.
    #expect(try daemon.apps()["stuck"]?.status.state.coarse == .suspended)
    #expect(try daemon.apps()["stuck"]?.measured.stopping == true)
    #expect(processState(pid: stuck) != "T")

    // Once the process can stop, it does, and the suspend request is answered.
    freezer.release()
    let reply = try #require(try suspendClient.nextResponse())
    #expect(reply.ok)
    #expect(reply.app?.status.state.coarse == .suspended)
    #expect(reply.app?.status.suspendIncomplete == false)
    #expect(processState(pid: stuck) == "T")
    #expect(try daemon.ctl(["pressure", "release"]).status == 0)
  }

  @Test("past the suspend timeout an app that cannot stop counts as suspended, marked incomplete until it stops")
  func suspendTimeout() throws {
    let daemon = try DaemonHarness(config: Self.config(suspendTimeout: "300ms"))
    defer { daemon.stop() }
    let stuck = try daemon.launch("stuck", ["alloc", "8", "--hold"])
    let freezer = try HeldProcess(stuck)
    defer { freezer.release() }
    let result = try daemon.ctlJSON(AppInfo.self, ["suspend", "stuck"])
    #expect(result.status.state.coarse == .suspended)
    #expect(result.status.suspendIncomplete == true)
    #expect(processState(pid: stuck) != "T")
    #expect(try daemon.apps()["stuck"]?.status.suspendIncomplete == true)
    #expect(try daemon.ctl(["ps"]).stdout.contains("suspended (incomplete)"))

    freezer.release()
    try daemon.waitUntil("the held process to stop") { processState(pid: stuck) == "T" }
    try daemon.waitUntil("the suspension to be complete") {
      try daemon.apps()["stuck"]?.status.suspendIncomplete == false
    }
    #expect(try daemon.ctl(["kill", "stuck"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    #expect(record.lifecycle.state == .suspended)
    #expect(record.lifecycle.suspendIncomplete == nil, "it did stop in the end")
  }
}

/// Holds a process where it cannot stop: in a frozen v1 freezer cgroup (state D) where that hierarchy exists,
/// else by freezing its own cgroup2 directory behind jetsamd's back.
final class HeldProcess {
  private let letGo: () -> Void
  private var released = false

  init(_ pid: Int32) throws {
    let v1 = "/sys/fs/cgroup/freezer"
    if FileManager.default.fileExists(atPath: v1 + "/freezer.state")
      || FileManager.default.fileExists(atPath: v1 + "/tasks")
    {
      let directory = v1 + "/jetsam-test-held-\(pid)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      try String(pid).write(toFile: directory + "/cgroup.procs", atomically: false, encoding: .utf8)
      try "FROZEN".write(toFile: directory + "/freezer.state", atomically: false, encoding: .utf8)
      letGo = {
        try? "THAWED".write(toFile: directory + "/freezer.state", atomically: false, encoding: .utf8)
        try? String(pid).write(toFile: v1 + "/cgroup.procs", atomically: false, encoding: .utf8)
        rmdir(directory)
      }
      let deadline = Date().addingTimeInterval(5)
      while processState(pid: pid) != "D" && Date() < deadline { usleep(10_000) }
    } else {
      let text = try String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else {
        throw TestKitError("no cgroup2 line in /proc/\(pid)/cgroup")
      }
      let freeze = "/sys/fs/cgroup" + line.dropFirst(3) + "/cgroup.freeze"
      try "1".write(toFile: freeze, atomically: false, encoding: .utf8)
      letGo = { try? "0".write(toFile: freeze, atomically: false, encoding: .utf8) }
      // Frozen once cgroup.events says so (the kernel freezes asynchronously).
      let events = "/sys/fs/cgroup" + line.dropFirst(3) + "/cgroup.events"
      let deadline = Date().addingTimeInterval(5 * TestTiming.slowdown)
      while !((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").contains("frozen 1") && Date() < deadline {
        usleep(10_000)
      }
    }
  }

  /// Lets the process go (idempotent).
  func release() {
    guard !released else { return }
    released = true
    letGo()
  }
}

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: what jetsamd tells systemd arrives here. A thread
/// reads it all the time, as systemd does: an unread notify socket (10 datagrams deep) would block the sender.
final class NotifySocket: @unchecked Sendable {
  let path: String
  private let fd: Int32
  private let lock = NSLock()
  private var received: [String] = []
  private var closed = false

  init() throws {
    path = NSTemporaryDirectory() + "jetsam-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in path.utf8.enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else {
      Glibc.close(fd)
      throw TestKitError("bind \(path): \(String(cString: strerror(errno)))")
    }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    Thread.detachNewThread { [self] in readUntilClosed() }
  }

  private func readUntilClosed() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !lock.withLock({ closed }) {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        let message = String(decoding: buffer[0..<n], as: UTF8.self)
        lock.withLock { received.append(message) }
      }
    }
    Glibc.close(fd)
  }

  /// Every message received since the last call.
  @discardableResult
  func drain() -> [String] {
    lock.withLock {
      defer { received = [] }
      return received
    }
  }

  /// Stops reading; the reader thread closes the socket.
  func close() {
    lock.withLock { closed = true }
    unlink(path)
  }
}
