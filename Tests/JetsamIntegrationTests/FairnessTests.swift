import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Synchronization
import Testing

/// No app and no client can take the loop: each gets a bounded share per turn, after every kernel source.
@Suite("Fairness", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .offThePool)
struct FairnessTests {
  @Test("an app writing to its channel without pause and a client flooding the socket leave jetsamd responsive")
  func floods() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    // Valid lines that need no answer, each one an event for the policy: the channel never runs dry.
    let firehose = try daemon.launch(
      "firehose", ["-c", #"exec yes 'stateSummary value=busy' >&"$JETSAM_FD""#], executable: "/bin/sh")
    try daemon.launch("bystander-app", ["idle"], options: ["--background"])

    // A client that writes requests as fast as it can and never reads an answer.
    let flooding = Flag()
    let socket = daemon.socket
    let thread = Thread {
      guard let flooder = try? ControlClient(path: socket) else { return }
      let request = Array(#"{"v":1,"verb":"ps"}"#.utf8) + [10]
      let flood = Array(repeating: request, count: 256).flatMap { $0 }
      while flooding.isSet {
        do { try flooder.write(raw: flood) } catch { break }
      }
    }
    thread.start()
    defer { flooding.clear() }

    // Another client's requests are answered as on an idle daemon (the bound is generous: these machines are
    // shared; before fairness, one such app held status for 15 s).
    let bystander = try ControlClient(path: daemon.socket)
    var slowest = 0.0
    for _ in 0..<40 {
      let start = MonotonicTime.now()
      let (code, message) = try bystander.errorFor(#"{"v":1,"verb":"status"}"#)
      slowest = max(slowest, MonotonicTime.seconds(since: start))
      #expect(code == nil, "\(message)")
      MonotonicTime.sleep(milliseconds: 10)
    }
    #expect(slowest < 2 * TestTiming.slowdown, "slowest status answer: \(slowest) s")
    #expect(kill(firehose, 0) == 0, "the firehose app is still running, so the flood really lasted")

    // Kills and records go first: the firehose app is killed and recorded while both floods go on.
    let (code, message) = try bystander.errorFor(#"{"v":1,"verb":"kill","app":"firehose"}"#)
    #expect(code == nil, "\(message)")
    let records = try daemon.waitForRecords(1, timeout: 10)
    #expect(records.first?.app == "firehose" && records.first?.cause.reason == .memoryPressure, "\(records)")
    flooding.clear()
  }
}

extension FairnessTests {
  @Test("one connection past the cap is refused with tooManyConnections; the others are served, and room returns")
  func connectionCap() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    var open: [ControlClient] = []
    for _ in 0..<256 { open.append(try ControlClient(path: daemon.socket)) }
    // Every one of them is a real connection the daemon serves (this also makes sure all were accepted).
    for client in open.prefix(3) + open.suffix(3) {
      let (code, message) = try client.errorFor(#"{"v":1,"verb":"status"}"#)
      #expect(code == nil, "\(message)")
    }
    let extra = try ControlClient(path: daemon.socket)
    let refusal = try extra.nextResponse()
    #expect(refusal?.error?.code == .tooManyConnections, "\(String(describing: refusal))")
    // Closing one makes room for the next.
    open.removeLast()
    try daemon.waitUntil("a connection slot is free again", timeout: 10) {
      guard let client = try? ControlClient(path: daemon.socket) else { return false }
      return (try? client.errorFor(#"{"v":1,"verb":"status"}"#).code) == .some(nil)
    }
  }
}

extension FairnessTests {
  @Test("a member (a real second user) gets 32 connections, the 33rd is refused; root and other users still get in")
  func perUserCap() throws {
    let daemon = try DaemonHarness(config: #"{ controlGroup: "nogroup" }"#)
    defer { daemon.stop() }
    // nobody (primary group nogroup, the control group) opens 33 connections and asks status on each.
    let script = """
      import json, socket, sys
      held, answers = [], []
      for _ in range(33):
          s = socket.socket(socket.AF_UNIX)
          s.connect(sys.argv[1])
          try:
              s.sendall(b'{"v":1,"verb":"status"}\\n')
          except BrokenPipeError:
              pass  # the connection past the cap is answered and closed at accept: its answer waits unread
          held.append(s)
      for s in held:
          line = s.makefile("rb").readline()
          reply = json.loads(line) if line else {}
          answers.append(reply.get("error", {}).get("code", "ok" if reply.get("ok") else "closed"))
      print(json.dumps(answers))
      sys.stdout.flush()
      sys.stdin.readline()
      """
    // Its stdin is a pipe the test holds: the script keeps its connections until that closes.
    let output = try outputPipe(nonblockingRead: false)
    let input = try outputPipe(nonblockingRead: false)
    let member: SpawnedProgram
    do {
      defer {
        output.write.close()
        input.read.close()
      }
      member = try SpawnedProgram(
        "/usr/bin/setpriv",
        ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socket],
        stdin: input.read, stdout: output.write, stderr: nil)
    }
    defer {
      input.write.close()
      member.waitForEnd(timeout: nil)
    }
    let line = String(
      decoding: FileHandle(fileDescriptor: output.read.rawValue, closeOnDealloc: true).availableData, as: UTF8.self)
    let answers = try JSONDecoder().decode([String].self, from: Data(line.utf8))
    #expect(answers.prefix(32).allSatisfy { $0 == "ok" }, "\(answers)")
    #expect(answers.last == "tooManyConnections", "\(answers)")
    // While nobody holds its 32, root is not held to the per-user cap, and neither is another member's share.
    let root = try ControlClient(path: daemon.socket)
    #expect(try root.errorFor(#"{"v":1,"verb":"status"}"#).code == nil)
    let other = try daemon.ctl(asUser: "daemon", group: "nogroup", ["status"])
    #expect(other.status == 0, "another member has its own 32: \(other.stderr)")
  }

  @Test("daemonRealtimePriority: the loop runs SCHED_FIFO with reset-on-fork; apps run on the normal scheduler")
  func realtimeLoop() throws {
    let daemon = try DaemonHarness(config: "{ daemonRealtimePriority: 1 }")
    defer { daemon.stop() }
    #expect(RealtimeScheduling.fifoPriority(of: daemon.pid) == 1)
    #expect(RealtimeScheduling.resetsOnFork(daemon.pid))
    let pidFile = daemon.directory + "/child.pid"
    let parent = try daemon.launch("app", ["fork-child", "--pid-file", pidFile])
    var child: Int32 = 0
    try daemon.waitUntil("the child's pid") {
      child = Int32(((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").filter(\.isNumber)) ?? 0
      return child > 0
    }
    for pid in [parent, child] {
      #expect(sched_getscheduler(pid) == SCHED_OTHER, "pid \(pid)")
      #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid)) == 0, "pid \(pid) starts at nice 0")
    }

    let normal = try DaemonHarness()
    defer { normal.stop() }
    #expect(sched_getscheduler(normal.pid) == SCHED_OTHER)
  }
}

/// A flag one thread clears and another reads.
private final class Flag: Sendable {
  private let value = Atomic(true)
  var isSet: Bool { value.load(ordering: .relaxed) }
  func clear() { value.store(false, ordering: .relaxed) }
}
