import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

extension ControlClient {
  /// The next change a `watch` pushes, or nil when none came within `timeout` seconds.
  func nextChange(timeout: Double) throws -> LiveChange? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000 * TestTiming.slowdown))
    while ContinuousClock.now < deadline {
      if !hasBufferedLine {
        var fd = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&fd, 1, 50) > 0 else { continue }
      }
      guard let response = try nextResponse() else { throw TestKitError("jetsamd closed the watch") }
      if let change = response.change { return change }
    }
    return nil
  }

  /// Reads changes until one satisfies `match`; returns every change read, that one last.
  func changes(until what: String, timeout: Double = 15, _ match: (LiveChange) -> Bool) throws -> [LiveChange] {
    var seen: [LiveChange] = []
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000 * TestTiming.slowdown))
    while ContinuousClock.now < deadline {
      guard let change = try nextChange(timeout: 0.2) else { continue }
      seen.append(change)
      if match(change) { return seen }
    }
    throw TestKitError("timed out waiting for \(what); saw \(seen.map(\.kind.rawValue))")
  }
}

/// `watch` (the streaming subscription), app signposts, and `jetsamctl top` on a real jetsamd and real apps.
@Suite(
  "Watching and top", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct WatchTests {
  static let bashApp = Binaries.packageRoot + "/clients/bash/example-app.sh"

  @Test(
    "watch pushes a snapshot, then states, signposts, acknowledgements, the kill and its record, and memory, in order")
  func watchStreamsChanges() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("early", ["idle"], options: ["--background"])
    let client = try ControlClient(path: daemon.socket)
    var request = ControlRequest(verb: .watch)
    request.interval = 0.2
    let answer = try client.send(request)
    let snapshot = try #require(answer.watch, "\(answer)")
    #expect(snapshot.apps.map(\.status.name) == ["early"])
    #expect(snapshot.apps.first?.status.state == .background)
    #expect(snapshot.intervalSeconds == 0.2)

    // The bash example app brackets its save (at didEnterBackground, in its working directory) with signposts.
    let pid = try daemon.launch("notes", [], options: ["--acknowledgements", "always"], executable: Self.bashApp)
    try daemon.ctl(["background", "notes"])
    var seen = try client.changes(until: "didEnterBackground's acknowledgement") {
      $0.kind == .acknowledgement && $0.name == "didEnterBackground"
    }
    try daemon.ctl(["suspend", "notes"])
    try daemon.ctl(["kill", "notes", "--reason", "memoryPressure"])
    seen += try client.changes(until: "the exit record") { $0.kind == .exit && $0.app == "notes" }
    seen += try client.changes(until: "a memory sample") { $0.kind == .memory }

    let notes = seen.filter { $0.app == "notes" }
    #expect(notes.allSatisfy { $0.launch == 1 })
    let states = notes.filter { $0.kind == .state }.compactMap(\.to)
    #expect(states.starts(with: [.launching, .foregroundActive]))
    #expect(states.contains(.background) && states.contains(.suspended))
    #expect(
      notes.filter { $0.kind == .state && $0.to != .launching && $0.to != .terminated }.allSatisfy { $0.pid == pid })
    let signposts = notes.filter { $0.kind == .signpost }.map { "\($0.name ?? "?") \($0.phase?.rawValue ?? "?")" }
    #expect(signposts == ["save begin", "save end"])
    #expect(notes.contains { $0.kind == .appEvent && $0.name == "didEnterBackground" })
    // Each lifecycle event acknowledged once its handler returned: the save's signposts come before its end.
    let acknowledged = notes.filter { $0.kind == .acknowledgement }
    #expect(
      acknowledged.compactMap(\.name) == [
        "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
      ])
    #expect(acknowledged.allSatisfy { $0.pid == pid })
    let saveEnd = try #require(notes.firstIndex { $0.kind == .signpost && $0.phase == .end })
    let lastAcknowledgement = try #require(notes.lastIndex { $0.kind == .acknowledgement })
    #expect(saveEnd < lastAcknowledgement)
    let kill = try #require(notes.first { $0.kind == .kill })
    #expect(kill.reason == .memoryPressure && kill.pid == pid)
    let exit = try #require(notes.first { $0.kind == .exit }?.record)
    #expect(exit.cause.reason == .memoryPressure && exit.lifecycle.state == .suspended && exit.pid == pid)
    // In the order they happened, on the clock of the record's kill instant.
    let times = seen.map(\.monotonicNanoseconds)
    #expect(times == times.sorted())
    let killSignalled = try #require(exit.cause.killSignalledNanoseconds)
    #expect(abs(kill.monotonicNanoseconds - killSignalled) < 1_000_000_000)
    let memory = try #require(seen.last)
    #expect(memory.memory?["early"] ?? 0 > 0)
    #expect(memory.memory?["notes"] == nil)
    #expect(memory.availableBytes ?? 0 > 0)
  }

  @Test("a watch that asks for a bad interval is refused with the field named")
  func badInterval() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let client = try ControlClient(path: daemon.socket)
    let refused = try client.errorFor(#"{"v":1,"verb":"watch","interval":0.001}"#)
    #expect(refused.code == "badRequest")
    #expect(refused.message.hasPrefix("interval: "))
  }

  @Test("watchers that never read hold jetsamd to its output budget, are dropped with the reason, and jetsamctl works")
  func nonReadingWatchers() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    // Running apps make every memory sample longer (one entry each).
    for index in 0..<12 { try daemon.launch("app-\(index)", ["idle"], options: ["--background"]) }
    let before = try #require(daemon.residentKilobytes)
    // Every connection the control socket takes (256) but one, left to jetsamctl: watchers that ask for a memory
    // sample every 50 ms and never read a byte.
    let watch = Array(#"{"v":1,"verb":"watch","interval":0.05}"#.utf8) + [10]
    var watchers: [ControlClient] = []
    for _ in 0..<255 {
      let watcher = try ControlClient(path: daemon.socket)
      try watcher.write(raw: watch)
      watchers.append(watcher)
    }
    // While their output piles up (and pressure changes add to it), jetsamctl is answered every time and jetsamd
    // stays within the output budget over where it started; until it has dropped many of them.
    var peak = before
    var level = "warning"
    func dropped() -> Int { daemon.log.components(separatedBy: "dropping control client").count - 1 }
    try daemon.waitUntil("jetsamd to drop 32 watchers", timeout: 120) {
      let status = try daemon.ctl(["status"])
      #expect(status.status == 0, "jetsamctl status while watchers do not read: \(status.stderr)")
      #expect(try daemon.ctl(["pressure", "set", level]).status == 0)
      level = level == "warning" ? "normal" : "warning"
      peak = max(peak, daemon.residentKilobytes ?? 0)
      return dropped() >= 32
    }
    #expect(
      peak - before < Self.outputMemoryBoundKilobytes,
      "jetsamd grew from \(before) kB to \(peak) kB with \(watchers.count) watchers that do not read")
    #expect(daemon.log.contains("the most of any client, while all clients together were owed more than 32 MiB"))

    // The watchers read at last, all at once, for longer than a dropped one waits for its last line (5 s): those
    // dropped a moment ago find why after whole lines; those dropped earlier end after whole lines; the others'
    // streams go on.
    var tails = [[[UInt8]]](repeating: [], count: watchers.count)
    var pending = [[UInt8]](repeating: [], count: watchers.count)
    var closed = [Bool](repeating: false, count: watchers.count)
    var chunk = [UInt8](repeating: 0, count: 65536)
    let deadline = ContinuousClock.now + .seconds(8 * TestTiming.slowdown)
    while ContinuousClock.now < deadline && closed.contains(false) {
      var fds = watchers.indices.map {
        pollfd(fd: closed[$0] ? -1 : watchers[$0].socketDescriptor, events: Int16(POLLIN), revents: 0)
      }
      guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
      for index in watchers.indices where fds[index].revents != 0 {
        let n = chunk.withUnsafeMutableBytes {
          recv(watchers[index].socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
        }
        if n < 0 && errno == EAGAIN { continue }
        guard n > 0 else {
          closed[index] = true
          continue
        }
        pending[index] += chunk[..<n]
        while let newline = pending[index].firstIndex(of: 10) {
          tails[index].append(Array(pending[index][..<newline]))
          pending[index].removeSubrange(...newline)
        }
        // Only the last lines matter: the test stays small.
        if tails[index].count > 2 { tails[index].removeFirst(tails[index].count - 2) }
      }
    }
    var reasons = 0
    for index in watchers.indices where closed[index] {
      #expect(pending[index].isEmpty, "a dropped watcher's stream ended inside a line")
      for line in tails[index] {
        #expect((try? JSONSerialization.jsonObject(with: Data(line))) != nil, "not a whole JSON line")
      }
      if let last = tails[index].last,
        let response = try? JSONDecoder().decode(ControlResponse.self, from: Data(last)), response.ok == false
      {
        #expect(response.error?.code == .tooMuchUnread, "\(response)")
        #expect(response.error?.message.contains("of output unread") == true)
        reasons += 1
      }
    }
    let ended = closed.count(where: { $0 })
    #expect(ended >= 32, "only \(ended) watchers were closed")
    #expect(reasons >= 1, "no dropped watcher read why")
  }

  /// What unread output may cost jetsamd's memory, in kB, as README and PROTOCOL-CONTROL.md document it: the
  /// 32 MiB budget and the allocator's slack on it (measured: 37 MB with 255 watchers).
  static let outputMemoryBoundKilobytes = 48 * 1024

  @Test("top prints plain tables when not on a terminal; watch --json prints JSON lines")
  func plainOutputs() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    try daemon.launch("mail", ["alloc", "24", "--hold"])
    try daemon.waitUntil("mail's memory to show") { try daemon.apps()["mail"]?.measured.memoryBytes ?? 0 > 20 << 20 }
    let top = try daemon.ctl(["top", "--interval", "0.2", "--iterations", "2"])
    #expect(top.status == 0, "\(top.stderr)")
    let frames = top.stdout.components(separatedBy: "\n\n").filter { !$0.isEmpty }
    #expect(frames.count == 2)
    let row = try #require(frames.last?.split(separator: "\n").first { $0.hasPrefix("mail ") })
    #expect(row.contains("foregroundActive") && row.contains("M ") && row.contains("█"), "\(top.stdout)")
    #expect(!top.stdout.contains("\u{1B}"))

    // `watch --json`: the snapshot, then one change per line (ended by SIGINT, as a user's Ctrl-C would, once it
    // printed two samples: however slow the machine).
    let watch = try ChildProcess(
      Binaries.current.jetsamctl, ["--socket", daemon.socket, "--json", "watch", "--interval", "0.2"])
    try daemon.waitUntil("watch to print its snapshot and two samples") { watch.log.all.count >= 3 }
    #expect(watch.stop(signal: SIGINT), "watch ends at Ctrl-C")
    let lines = watch.log.all.prefix(3).map { Data($0.text.utf8) }
    let first = try JSONDecoder().decode(WatchSnapshot.self, from: try #require(lines.first))
    #expect(first.apps.map(\.status.name) == ["mail"])
    let samples = try lines.dropFirst().map { try JSONDecoder().decode(LiveChange.self, from: $0) }
    #expect(samples.count == 2 && samples.allSatisfy { $0.kind == .memory && $0.memory?["mail"] ?? 0 > 20 << 20 })
  }

  @Test(
    "top under tmux: rows pushed as apps change, keys sort and filter, exits listed, q quits",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux (make test installs it)"))
  func topInTmux() throws {
    let daemon = try DaemonHarness(config: "{ suspend: { backgroundGrace: null } }")
    defer { daemon.stop() }
    try daemon.launch("mail", ["alloc", "16", "--hold"], options: ["--background"])
    let tmux = try TmuxSession([Binaries.current.jetsamctl, "--socket", daemon.socket, "top", "--interval", "0.2"])
    defer { tmux.close() }
    func rows(_ screen: String) -> [String] {
      screen.split(separator: "\n").map(String.init).filter { $0.hasPrefix("mail ") || $0.hasPrefix("zeta ") }
    }
    try tmux.waitForScreen("mail's row") { rows($0).first?.contains("background") == true }

    // A new app appears without a key pressed; by memory, the larger first.
    try daemon.launch("zeta", ["alloc", "48", "--hold"])
    try tmux.waitForScreen("zeta above mail (sorted by memory)") { screen in
      rows(screen).map { String($0.prefix(4)) } == ["zeta", "mail"]
    }
    try tmux.send("s")
    try tmux.waitForScreen("sorted by name") { screen in
      screen.contains("sort name") && rows(screen).map { String($0.prefix(4)) } == ["mail", "zeta"]
    }
    try tmux.send("/", "z", "e", "Enter")
    try tmux.waitForScreen("only zeta (filtered)") { screen in
      screen.contains("filter \"ze\"") && rows(screen).map { String($0.prefix(4)) } == ["zeta"]
    }
    try daemon.ctl(["background", "zeta"])
    try daemon.ctl(["suspend", "zeta"])
    try tmux.waitForScreen("zeta suspended") { rows($0).first?.contains("suspended") == true }
    try daemon.ctl(["kill", "zeta", "--reason", "memoryPressure"])
    try tmux.waitForScreen("zeta's exit listed") { $0.contains("zeta #1  memoryPressure  in suspended") }
    try tmux.send("Escape")
    try tmux.waitForScreen("the filter cleared") {
      !$0.contains("filter \"") && rows($0).contains { $0.hasPrefix("mail") }
    }
    try tmux.send("q")
    #expect(eventually(timeout: .seconds(10)) { (try? tmux.hasEnded()) == true })
  }
}
