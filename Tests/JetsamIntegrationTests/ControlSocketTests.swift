import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The control socket answers bad input with precise errors and keeps serving everyone else.
@Suite(
  "Control socket", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct ControlSocketTests {
  struct Malformed: Sendable, CustomStringConvertible {
    var line: String
    var code: String
    var message: String
    var description: String { line.count > 40 ? String(line.prefix(40)) + "…" : line }
  }

  static let malformed: [Malformed] = [
    Malformed(line: "garbage", code: "badRequest", message: "not a JSON object"),
    Malformed(line: #"{"v":1,"verb":"ps""#, code: "badRequest", message: "not a JSON object"),
    Malformed(line: #"{"v":1,"verb":"reboot"}"#, code: "badRequest", message: #"verb: unknown verb "reboot""#),
    Malformed(line: #"{"v":2,"verb":"ps"}"#, code: "unsupportedVersion", message: "v: version 2 is not supported"),
    Malformed(line: #"{"verb":"ps"}"#, code: "badRequest", message: "v: missing"),
    Malformed(line: #"{"v":1,"verb":"launch","app":5}"#, code: "badRequest", message: "app: expected a string"),
    Malformed(line: #"{"v":1,"verb":"kill","app":"x","reason":"bored"}"#, code: "badRequest", message: "reason:"),
    Malformed(line: #"{"v":1,"verb":"ps","colour":"red"}"#, code: "badRequest", message: "colour: unknown field"),
    Malformed(line: #"{"v":1,"verb":"suspend"}"#, code: "badRequest", message: "app: missing"),
    Malformed(
      line: #"{"v":1,"verb":"suspend","app":"nobody-here"}"#, code: "unknownApp",
      message: #"no app named "nobody-here""#),
    Malformed(
      line: #"{"v":1,"verb":"pressure","action":"explode"}"#, code: "badRequest",
      message: "action: unknown pressure action"),
    // A client other than jetsamctl (which refuses it itself): a digest with no ready would judge every relaunch lost.
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"d","command":["/bin/sleep","9"],"digest":["/bin/true"]}"#,
      code: "badRequest", message: "digest: needs a ready command (the restored digest waits for it)"),
  ]

  @Test("malformed requests get an error naming the problem, on a connection that stays usable", arguments: malformed)
  func malformedRequest(_ bad: Malformed) throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let client = try ControlClient(path: daemon.socket)
    let (code, message) = try client.errorFor(bad.line)
    #expect(code == bad.code, "\(message)")
    #expect(message.contains(bad.message), "got: \(message)")
    // The same connection still works.
    let (after, _) = try client.errorFor(#"{"v":1,"verb":"status"}"#)
    #expect(after == nil)
  }

  /// Numbers and strings chosen to overflow, trap or slip through to execve: each must be refused with an error
  /// naming the field, by a daemon that stays up (found by fuzzing the socket; several crashed jetsamd).
  static let hostile: [Malformed] = [
    Malformed(
      line: #"{"v":1,"verb":"pressure","action":"allocate","size":9223372036854775807}"#, code: "badRequest",
      message: "size: 9223372036854775807: must be 1 byte to the device's RAM"),
    Malformed(
      line: #"{"v":1,"verb":"pressure","action":"allocate","size":-5}"#, code: "badRequest", message: "size: -5:"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h1","command":["/bin/sleep","9"],"memoryLimit":9223372036854775807}"#,
      code: "badRequest", message: "memoryLimit: 9223372036854775807 is not a memory cap"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h2","command":["/bin/sleep","9"],"memoryLimit":-1}"#,
      code: "badRequest", message: "memoryLimit: -1 is not a memory cap"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h3","command":["/bin/sleep","9"],"cpuLimit":1e308}"#,
      code: "badRequest", message: "cpuLimit: 1e+308 is not a CPU cap"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h4","command":["/bin/sleep","9"],"band":-9223372036854775807}"#,
      code: "badRequest", message: "band: -9223372036854775807 is not a band (0-20)"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h5","command":["/bin/sleep\u0000x","9"]}"#, code: "badRequest",
      message: "command[0]: must not contain a NUL byte"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h6","command":["/bin/sleep","9"],"env":{"A=B":"c"}}"#,
      code: "badRequest", message: #"env."A=B": a variable name must be non-empty"#),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h7","command":["/bin/sleep","9"],"env":{"X":"a\u0000b"}}"#,
      code: "badRequest", message: "env.X: must not contain a NUL byte"),
    Malformed(
      line: #"{"v":1,"verb":"launch","app":"h8","command":["/nonexistent/jetsam-program"]}"#, code: "launchFailed",
      message: "launch of h8 failed:"),
    Malformed(line: #"{"v":9223372036854775807,"verb":"ps"}"#, code: "unsupportedVersion", message: "v: version"),
  ]

  @Test("hostile numbers and strings are refused with the field named, and jetsamd stays up")
  func hostileRequests() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let pid = daemon.pid
    let client = try ControlClient(path: daemon.socket)
    for bad in Self.hostile {
      let (code, message) = try client.errorFor(bad.line)
      #expect(code == bad.code, "\(bad): \(message)")
      #expect(message.contains(bad.message), "\(bad): got \(message)")
      let (after, _) = try client.errorFor(#"{"v":1,"verb":"status"}"#)
      #expect(after == nil && kill(pid, 0) == 0, "jetsamd is gone after \(bad)")
    }
    // Nothing was started by the refused launches (the failed spawn left no process behind either).
    let apps = try client.send(line: Array(#"{"v":1,"verb":"ps"}"#.utf8) + [10]).apps ?? []
    #expect(apps.allSatisfy { $0.status.pid == nil }, "\(apps)")
  }

  @Test("a 10 MB line is refused without being buffered, while a second client keeps working")
  func hugeLine() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let flooder = try ControlClient(path: daemon.socket)
    let bystander = try ControlClient(path: daemon.socket)
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
    for index in 0..<10 {
      try flooder.write(raw: chunk)
      if index == 5 {
        // Halfway through the flood, another client is served normally.
        let (code, _) = try bystander.errorFor(#"{"v":1,"verb":"ps"}"#)
        #expect(code == nil)
      }
    }
    try flooder.write(raw: Array("\n".utf8))
    let response = try flooder.nextResponse()
    #expect(response?.error?.code.rawValue == "requestTooLarge")
    let (code, _) = try flooder.errorFor(#"{"v":1,"verb":"status"}"#)
    #expect(code == nil, "the flooder's connection is usable after its oversized line")
    // The daemon's memory stayed small: it did not keep the 10 MB.
    let rss = try #require(daemon.residentKilobytes)
    #expect(rss < 60_000, "jetsamd RSS \(rss) kB after a 10 MB line")
  }

  @Test("exits reads a large log off the loop; a pipelined request on the same connection is answered after it")
  func largeLogInOrder() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    daemon.crash()
    // 4,000 records left by earlier runs (written as jetsamd writes them: one JSON object a line). More would
    // mostly time jetsamd's start-up, which reads the whole log for launch numbers (slow under the VM's emulation).
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var text = ""
    // Of now: a log whose first record is over a week old rotates at the next append.
    let now = Date().ISO8601Format()
    for index in 0..<4_000 {
      let record = ExitRecord(
        time: now, app: index % 2 == 0 ? "even" : "odd", pid: Int32(1000 + index), launch: index + 1,
        cause: ExitCause(reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", signal: 9),
        lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 1, stateSeconds: 1),
        pressure: ExitPressure(level: .urgent, availableBytes: 0))
      text += String(decoding: try encoder.encode(record), as: UTF8.self) + "\n"
    }
    try text.write(toFile: daemon.recordLogPath, atomically: false, encoding: .utf8)
    try daemon.restart()

    let client = try daemon.jetsamd.client()
    var exits = ControlRequest(verb: .exits)
    exits.app = "odd"
    exits.limit = 100_000
    let answers = try client.pipeline([try client.encode(exits), try client.encode(ControlRequest(verb: .status))])
    #expect(answers.count == 2)
    #expect(answers.first?.exits?.count == 2_000, "the records of app odd, newest first")
    #expect(answers.first?.exits?.first?.pid == 4_999 && answers.first?.exits?.last?.pid == 1001)
    #expect(answers.last?.status != nil, "the status answer comes second")
  }

  /// Writes up to `count` status requests on `client` without reading a single answer, as many as its socket
  /// takes without blocking; returns how many went out whole.
  static func sendStatusRequests(_ count: Int, on client: ControlClient) -> Int {
    let line = Array((#"{"v":1,"verb":"status"}"# + "\n").utf8)
    let requests = Array(Array(repeating: line, count: count).joined())
    var offset = 0
    while offset < requests.count {
      let sent = requests[offset...].withUnsafeBytes {
        send(client.socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
      }
      if sent <= 0 { break }
      offset += sent
    }
    return offset / line.count
  }

  @Test("clients that write requests and never read neither block the daemon nor grow it: each is paused")
  func stuckClient() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let before = try #require(daemon.residentKilobytes)
    // Forty clients, each with thousands of requests whose answers it never reads (about 1.3 MB of answers each,
    // over 40 MB of jetsamd's memory before it paused them): past a 64 KiB backlog jetsamd stops reading their
    // requests, which wait in their sockets.
    var stuck: [(client: ControlClient, lines: Int)] = []
    for _ in 0..<40 {
      let client = try ControlClient(path: daemon.socket)
      stuck.append((client, Self.sendStatusRequests(4000, on: client)))
    }
    let result = try daemon.ctl(["ps"])
    #expect(result.status == 0, "\(result.stderr)")
    // Once jetsamd has done all it will do for them (its CPU use drops to what an idle daemon uses, generous for
    // an emulated VM), its memory is measured.
    func cpuNanoseconds() -> Int {
      let text = (try? String(contentsOfFile: "/proc/\(daemon.pid)/schedstat", encoding: .utf8)) ?? ""
      return Int(text.split(separator: " ").first ?? "") ?? 0
    }
    var last = cpuNanoseconds()
    try daemon.waitUntil("jetsamd idle again", timeout: 60) {
      usleep(200_000)
      defer { last = cpuNanoseconds() }
      return cpuNanoseconds() - last < 25_000_000
    }
    let after = try #require(daemon.residentKilobytes)
    #expect(after - before < 30_000, "jetsamd grew from \(before) kB to \(after) kB")
    // A stuck client that reads again is served again: the rest of its requests are answered.
    // (A thousand answers: five times what its backlog held.)
    let first = try #require(stuck.first)
    #expect(first.lines > 1_000)
    var answered = 0
    while answered < 1_000, try first.client.nextResponse()?.status != nil { answered += 1 }
    #expect(answered == 1_000)
  }

  @Test("a client that hangs up while its answers wait to be written does not take jetsamd down")
  func hangUpWithAnswersQueued() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    // Enough status requests that their answers back up in jetsamd (its socket buffer full, the rest queued),
    // then the client is gone: jetsamd's next write fails (EPIPE) and it closes the connection from inside the
    // handler of that very event.
    for round in 0..<20 {
      let client = try ControlClient(path: daemon.socket)
      _ = Self.sendStatusRequests(4000, on: client)
      usleep(50_000)
      shutdown(client.socketDescriptor, Int32(SHUT_RDWR))
      usleep(20_000)
      #expect(try daemon.ctl(["status"]).status == 0, "jetsamd stopped answering after hang-up \(round)")
    }
  }

  @Test("out of descriptors, jetsamd pauses accepting rather than spin, and accepts again once it has some")
  func outOfDescriptors() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    func openDescriptors() -> Int {
      (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd"))?.count ?? 0
    }
    func cpuNanoseconds() -> Int {
      let text = (try? String(contentsOfFile: "/proc/\(daemon.pid)/schedstat", encoding: .utf8)) ?? ""
      return Int(text.split(separator: " ").first ?? "") ?? 0
    }
    // Its limit lowered to what it holds plus three, as a low LimitNOFILE= would: the fourth client waits in the
    // socket's backlog, where connect() has already succeeded.
    let soft = try runCommand(
      "/usr/bin/prlimit", ["--pid", String(daemon.pid), "--nofile", "--output=SOFT", "--noheadings"]
    ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let limit = openDescriptors() + 3
    let lowered = try runCommand("/usr/bin/prlimit", ["--pid", String(daemon.pid), "--nofile=\(limit):"])
    #expect(lowered.status == 0, "\(lowered.stderr)")
    var clients: [ControlClient] = []
    for _ in 0..<8 { clients.append(try ControlClient(path: daemon.socket)) }
    try daemon.waitUntil("jetsamd to run out of descriptors") { daemon.log.contains("accepting again in") }
    // While it cannot accept, the listener does not keep the loop busy (a spin would use a whole CPU-second per
    // second; generous for an emulated VM).
    let before = cpuNanoseconds()
    pause(.seconds(2))
    #expect(cpuNanoseconds() - before < 500_000_000, "jetsamd spun while out of descriptors")
    #expect(isAlive(daemon.pid))
    // Its limit back up and the clients gone: it accepts and answers again.
    let raised = try runCommand("/usr/bin/prlimit", ["--pid", String(daemon.pid), "--nofile=\(soft):"])
    #expect(raised.status == 0, "\(raised.stderr)")
    clients.removeAll()
    try daemon.waitUntil("jetsamd to answer again") { (try? daemon.ctl(["status"]).status) == 0 }
  }

  @Test("a request answered while another is handled never runs the next one inside it: no balloon is lost")
  func noRequestInsideAnother() throws {
    let daemon = try DaemonHarness(config: "{ device: { ram: \"1G\" } }")
    defer { daemon.stop() }
    // One client waits for a large balloon to be charged, with a second request queued behind it. Another client's
    // allocate releases that balloon, which answers the waiting request at once (it was released before it was
    // charged). The queued request must wait for the loop's next turn: handled there and then, inside the other
    // allocate, its balloon would be replaced without being released, its process left running and unwatched.
    let waiting = try ControlClient(path: daemon.socket)
    let lines =
      #"{"v":1,"verb":"pressure","action":"allocate","size":629145600,"wait":10}"# + "\n"
      + #"{"v":1,"verb":"pressure","action":"allocate","size":20971520}"# + "\n"
    _ = Array(lines.utf8).withUnsafeBytes { send(waiting.socketDescriptor, $0.baseAddress, $0.count, 0) }
    usleep(100_000)
    #expect(try daemon.ctl(["pressure", "allocate", "30M"]).status == 0)
    #expect(try waiting.nextResponse()?.ok == false, "the released balloon's wait fails")
    #expect(try waiting.nextResponse()?.ok == true)
    #expect(try daemon.ctl(["pressure", "release"]).status == 0)
    // Every balloon process jetsamd started is gone once the last balloon is released.
    func balloons() -> [Int32] {
      ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          stat.contains("(jetsam-testapp)"),
          let end = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(end, offsetBy: 2)...].split(separator: " ").dropFirst().first
          == Substring(String(daemon.pid))
      }
    }
    try daemon.waitUntil("every balloon process to be gone, not one left running unwatched (\(balloons()))") {
      balloons().isEmpty
    }
  }

  @Test("the socket file admits root and the control group only, and peers outside it are refused by credentials")
  func permissions() throws {
    let daemon = try DaemonHarness(config: #"{ controlGroup: "nogroup" }"#)
    defer { daemon.stop() }
    var st = stat()
    #expect(lstat(daemon.socket, &st) == 0)
    #expect(st.st_mode & 0o777 == 0o660)
    #expect(st.st_gid == getgrnam("nogroup").pointee.gr_gid)

    // `daemon` (uid 1) is not in nogroup: even with the file opened up, the daemon refuses it by credentials.
    chmod(daemon.socket, 0o666)
    let outsider = try daemon.ctl(asUser: "daemon", group: "daemon", ["ps"])
    #expect(outsider.status == 1)
    #expect(outsider.stderr.contains("permission denied"), "\(outsider.stderr)")

    // nobody's primary group is nogroup, the control group: allowed.
    let member = try daemon.ctl(asUser: "nobody", group: "nogroup", ["ps"])
    #expect(member.status == 0, "\(member.stderr)")
  }

  @Test("a member's ad-hoc app runs as the member, with a clean environment; a configured app keeps its command")
  func memberLaunches() throws {
    let daemon = try DaemonHarness(
      config: #"{ controlGroup: "nogroup", apps: { fixed: { command: ["/bin/sleep", "100"] } } }"#,
      environment: ["JETSAM_TEST_SECRET": "s3cret"])
    defer { daemon.stop() }
    // nobody (primary group nogroup, the control group) is a member, not root.
    func asMember(_ arguments: [String]) throws -> CommandResult {
      try daemon.ctl(asUser: "nobody", group: "nogroup", arguments)
    }
    let launched = try asMember(["--json", "launch", "mine", "--background", "--", "/bin/sleep", "100"])
    #expect(launched.status == 0, "\(launched.stderr)")
    let info = try JSONDecoder().decode(AppInfo.self, from: Data(launched.stdout.utf8))
    let pid = try #require(info.status.pid)
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first
    #expect(uid.map(String.init) == String(getpwnam("nobody").pointee.pw_uid), "the app runs as nobody: \(status)")
    let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
      .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(
      !environment.contains { $0.hasPrefix("JETSAM_TEST_SECRET=") }, "jetsamd's environment leaked: \(environment)")
    #expect(environment.contains("USER=nobody") && environment.contains("JETSAM_APP=mine"), "\(environment)")

    // A member may launch the configured app as configured, but not with another command or environment.
    let replaced = try asMember(["launch", "fixed", "--", "/bin/sh", "-c", "id"])
    #expect(replaced.status == 1)
    #expect(
      replaced.stderr.contains("only root may change the command, environment, ready, digest or hooks"),
      "\(replaced.stderr)")
    #expect(try daemon.apps()["fixed"]?.status.pid == nil, "nothing was started")
    // Root may.
    let byRoot = try daemon.ctl(["launch", "fixed", "--background", "--", "/bin/sleep", "50"])
    #expect(byRoot.status == 0, "\(byRoot.stderr)")
  }
}
