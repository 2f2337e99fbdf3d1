import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Sockets at suspension on real processes: a Python app holding a TCP connection to the test's server, an IPv6
/// listener, a UDP socket and a Unix socket pair, and a real server program (`python3 -m http.server`), each through
/// a suspension and a return, with iOS's `defunct` (the default) and with `keep`. SOCK_DESTROY needs root.
@Suite(
  "Sockets at suspension, on real processes", .serialized,
  .enabled(if: isRoot, "needs root: jetsamd creates cgroups, SOCK_DESTROY"),
  .timeLimit(.minutes(3)), .offThePool)
struct SocketDefunctTests {
  static let holder = Binaries.packageRoot + "/Tests/JetsamIntegrationTests/Fixtures/socket_holder.py"
  static let config = "{ suspend: { backgroundGrace: null } }"

  /// Starts the holder as app `db` in the background, connected to the test's server at `serverPort`, and waits
  /// until it holds its sockets. Returns its pid and its listener's port.
  static func startHolder(_ daemon: DaemonHarness, serverPort: UInt16, options: [String] = []) throws
    -> (pid: Int32, listenerPort: UInt16)
  {
    let pid = try daemon.launch(
      "db", [holder, String(serverPort), daemon.directory], options: ["--background"] + options,
      executable: "/usr/bin/python3")
    var port: UInt16?
    try daemon.waitUntil("the holder to hold its sockets") {
      port = (try? String(contentsOfFile: daemon.directory + "/ready", encoding: .utf8)).flatMap { UInt16($0) }
      return port != nil
    }
    return (pid, port!)
  }

  /// Cues the holder to use its sockets and returns what each gave (`ok` or the error's name), by socket.
  static func probe(_ daemon: DaemonHarness) throws -> [String: String] {
    #expect(FileManager.default.createFile(atPath: daemon.directory + "/probe", contents: nil))
    var report: [String: String]?
    try daemon.waitUntil("the holder's report") {
      report = (FileManager.default.contents(atPath: daemon.directory + "/report")).flatMap {
        try? JSONDecoder().decode([String: String].self, from: $0)
      }
      return report != nil
    }
    return report!
  }

  /// Suspends `app` and waits until jetsamd says its sockets were defuncted; returns the log line that says so.
  static func suspendAndAwaitDefunct(_ daemon: DaemonHarness, _ app: String, pid: Int32) throws -> String {
    try daemon.ctl(["suspend", app])
    let said = "\(app) pid \(pid) suspended: sockets defuncted: "
    var line: Substring?
    try daemon.waitUntil("\(app)'s sockets to be defuncted") {
      line = daemon.log.split(separator: "\n").first { $0.contains(said) }
      return line != nil
    }
    return String(line!)
  }

  /// Suspends `app` and waits until its process is seen stopped.
  static func suspend(_ daemon: DaemonHarness, _ app: String, pid: Int32) throws {
    try daemon.ctl(["suspend", app])
    try daemon.waitUntil("\(app) to be suspended") {
      try daemon.apps()[app]?.status.state == .suspended && processState(pid: pid) == "T"
    }
  }

  /// A free port on 127.0.0.1 (bound once, then let go).
  static func freePort() throws -> UInt16 { try LoopbackListener.freePort() }

  @Test("defunct (the default, iOS): after the return the connection and the listener fail; the Unix pair works")
  func defunct() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (server, serverPort) = try LoopbackSockets.listen()
    defer { server.close() }
    let (pid, listenerPort) = try Self.startHolder(daemon, serverPort: serverPort)
    let accepted = try LoopbackSockets.accept(server)
    defer { accepted.close() }

    let line = try Self.suspendAndAwaitDefunct(daemon, "db", pid: pid)
    #expect(line.contains("tcp 127.0.0.1:") && line.contains(" → 127.0.0.1:\(serverPort) established (pid \(pid))"))
    #expect(line.contains("tcp [::1]:\(listenerPort) → [::]:0 listen (pid \(pid))"), "\(line)")
    #expect(line.contains("udp 127.0.0.1:") && line.contains(" → 127.0.0.1:\(serverPort) established"), "\(line)")
    #expect(!line.contains("not all could be"), "\(line)")
    // The server's end of the connection was reset, while the app was still stopped.
    #expect(LoopbackSockets.read(accepted).failureCode == ECONNRESET)

    try daemon.ctl(["resume", "db"])
    #expect(LoopbackSockets.connect("::1", listenerPort).failureCode == ECONNREFUSED, "nothing listens any more")
    let report = try Self.probe(daemon)
    #expect(report["connection"] == "ECONNABORTED", "\(report)")
    #expect(report["listener"] == "EINVAL", "\(report)")
    #expect(report["udp"] != nil && report["udp"] != "ok", "\(report)")
    #expect(report["unix"] == "ok", "a Unix socket is never touched: \(report)")
    // The app's own channel is a Unix socket too: jetsamd still runs it as before.
    #expect(try daemon.apps()["db"]?.status.state == .background)
  }

  @Test("keep (jetsamctl launch --sockets keep): after the return the connection, listener and UDP socket work")
  func kept() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (server, serverPort) = try LoopbackSockets.listen()
    defer { server.close() }
    let (pid, listenerPort) = try Self.startHolder(daemon, serverPort: serverPort, options: ["--sockets", "keep"])
    let accepted = try LoopbackSockets.accept(server)
    defer { accepted.close() }

    try Self.suspend(daemon, "db", pid: pid)
    try daemon.ctl(["resume", "db"])
    let client = LoopbackSockets.connect("::1", listenerPort)
    #expect(client.failureCode == nil, "its listener still listens")
    defer { if case .success(let fd) = client { fd.close() } }
    let report = try Self.probe(daemon)
    #expect(report == ["connection": "ok", "listener": "ok", "udp": "ok", "unix": "ok"])
    #expect(LoopbackSockets.read(accepted, until: "ping\n").successText == "ping\n")
    #expect(!daemon.log.contains("sockets defuncted"))
  }

  @Test("an app in a network namespace of its own is out of jetsamd's reach: the log says so, precisely")
  func otherNetworkNamespace() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let script = [
      "import os, socket, time", "s = socket.socket()", "s.bind(('0.0.0.0', 0))", "s.listen()",
      "open(os.path.join(\(String(reflecting: daemon.directory)), 'ready'), 'w').close()", "time.sleep(3600)",
    ].joined(separator: "\n")
    // unshare execs python3 in the new namespace: the app's pid is python's.
    let pid = try daemon.launch(
      "ns", ["--net", "--", "/usr/bin/python3", "-c", script], options: ["--background"],
      executable: "/usr/bin/unshare")
    try daemon.waitUntil("the app to listen") { FileManager.default.fileExists(atPath: daemon.directory + "/ready") }
    let line = try Self.suspendAndAwaitDefunct(daemon, "ns", pid: pid)
    #expect(
      line.contains(
        "sockets defuncted: none; not all could be: its 1 network socket(s) are in network namespace net:["),
      "\(line)")
    #expect(line.contains("inet_diag cannot reach them"), "\(line)")
  }

  /// `python3 -m http.server PORT` as configured app `web` (`sockets` as given in its entry, if any).
  static func webConfig(port: UInt16, sockets: String?) -> String {
    let entry = sockets.map { #", sockets: { atSuspension: "\#($0)" }"# } ?? ""
    return #"""
      { suspend: { backgroundGrace: null },
        apps: { web: { command: ["/usr/bin/python3", "-m", "http.server", "\#(port)", "--bind", "127.0.0.1"]\#(entry) } } }
      """#
  }

  /// Launches `web` in the background and waits until it serves.
  static func startWeb(_ daemon: DaemonHarness, port: UInt16) throws -> Int32 {
    let info = try daemon.ctlJSON(AppInfo.self, ["launch", "web", "--background"])
    try daemon.waitUntil("http.server to serve") {
      LoopbackSockets.get(port: port).successText?.hasPrefix("HTTP/1.0 200") == true
    }
    return try #require(info.status.pid)
  }

  @Test("a real server (python3 -m http.server): after a suspension and return its listener no longer accepts")
  func httpServerDefunct() throws {
    let port = try Self.freePort()
    let daemon = try DaemonHarness(config: Self.webConfig(port: port, sockets: nil))
    defer { daemon.stop() }
    let pid = try Self.startWeb(daemon, port: port)
    let line = try Self.suspendAndAwaitDefunct(daemon, "web", pid: pid)
    #expect(line.contains("tcp 127.0.0.1:\(port) → 0.0.0.0:0 listen (pid \(pid))"), "\(line)")
    try daemon.ctl(["resume", "web"])
    #expect(LoopbackSockets.get(port: port).failureCode == ECONNREFUSED)
  }

  @Test("a real server with keep in its config entry serves again after a suspension and return")
  func httpServerKept() throws {
    let port = try Self.freePort()
    let daemon = try DaemonHarness(config: Self.webConfig(port: port, sockets: "keep"))
    defer { daemon.stop() }
    let pid = try Self.startWeb(daemon, port: port)
    try Self.suspend(daemon, "web", pid: pid)
    try daemon.ctl(["resume", "web"])
    #expect(LoopbackSockets.get(port: port).successText?.hasPrefix("HTTP/1.0 200") == true)
    #expect(!daemon.log.contains("sockets defuncted"))
  }
}

extension Result where Failure == SystemError {
  /// The errno a failure carries; nil on success.
  var failureCode: Int32? {
    if case .failure(let error) = self { return error.code }
    return nil
  }
}

extension Result where Success == String {
  /// The text a success carries; nil on failure.
  var successText: String? { try? get() }
}
