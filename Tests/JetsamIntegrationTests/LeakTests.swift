import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// jetsamd holds a few descriptors per app (pidfd, cgroup files, channel) and per kill (a memory release in flight) and
/// per client, and memory per client (its unsent replies): all of it comes back once the app or the client is gone.
@Suite(
  "Leaks", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"), .timeLimit(.minutes(5)),
  .offThePool)
struct LeakTests {
  /// What each of the process's descriptors refers to (`socket:[123]`, `anon_inode:[eventfd]`, a path).
  private func descriptors(of pid: Int32) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
  }

  /// The kinds of descriptors in `after` beyond those in `before`, with their counts.
  private func added(_ before: [String], _ after: [String]) -> [String: Int] {
    func kind(_ target: String) -> String {
      target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : target
    }
    var counts: [String: Int] = [:]
    for target in after { counts[kind(target), default: 0] += 1 }
    for target in before { counts[kind(target), default: 0] -= 1 }
    return counts.filter { $0.value > 0 }
  }

  @Test("double kills, failed spawns and dropped clients leave jetsamd with the descriptors it had")
  func noLeaks() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    // One round first: whatever jetsamd opens once for good (the record log, its helper threads) is open after it.
    try daemon.launch("warmup", ["idle"], options: ["--background"])
    #expect(try daemon.ctl(["kill", "warmup"]).status == 0)
    _ = try daemon.waitForRecords(1)
    let baseline = descriptors(of: daemon.pid)

    for round in 0..<5 {
      // Each round on its own connection, closed at the end of the round.
      let client = try ControlClient(path: daemon.socket)
      let name = "twice\(round)"
      try daemon.launch(name, ["idle"], options: ["--background"])
      // Two kills before the exit is seen, in one write.
      let kill = #"{"v":1,"verb":"kill","app":"\#(name)"}"# + "\n"
      _ = try client.pipeline([Array(kill.utf8), Array(kill.utf8)])
      // A spawn that fails at exec.
      let failed = try daemon.ctl(["launch", "missing\(round)", "--", "/nonexistent/program"])
      #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
      // A client that connects, asks, and goes without reading.
      let dropped = try ControlClient(path: daemon.socket)
      try dropped.write(raw: Array(#"{"v":1,"verb":"ps"}"#.utf8) + [10])
    }
    _ = try daemon.waitForRecords(1 + 5)  // a spawn that failed ran nothing and has no record
    do {
      try daemon.waitUntil("jetsamd is back to its \(baseline.count) descriptors") {
        descriptors(of: daemon.pid).count <= baseline.count
      }
    } catch {}
    let after = descriptors(of: daemon.pid)
    // At most as many: the baseline may still have held a descriptor on its way out (the warm-up's memory release,
    // the connection of the jetsamctl that killed it).
    #expect(after.count <= baseline.count, "more descriptors than before: \(added(baseline, after))")
  }

  private func residentKiB(of pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
  }

  @Test("a closed control connection gives back the memory of its replies")
  func connectionMemoryComesBack() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    // Enough records that each `exits` reply is about 100 KB, launched on one connection (no jetsamctl per launch:
    // this must stay quick in the cgroup v2 VM too).
    let launches = (0..<200).map { index in
      Array((#"{"v":1,"verb":"launch","app":"r\#(index % 20)","command":["/bin/true"]}"# + "\n").utf8)
    }
    let launcher = try ControlClient(path: daemon.socket)
    for batch in stride(from: 0, to: launches.count, by: 20) {
      _ = try launcher.pipeline(Array(launches[batch..<batch + 20]))
      // Each app must have exited before it is launched again.
      _ = try daemon.waitForRecords(batch + 20)
    }
    let ask = Array((#"{"v":1,"verb":"exits"}"# + "\n").utf8)
    func round(_ connections: Int) throws {
      for _ in 0..<connections {
        let client = try ControlClient(path: daemon.socket)
        #expect(try client.send(line: ask).exits?.count == 200)
      }
    }
    try round(30)
    // jetsamd trims its heap 2 s after activity.
    sleep(3)
    let before = residentKiB(of: daemon.pid)
    try round(150)
    // Kept replies would be 150 connections x ~100 KB = ~15 MB; freed ones are gone once the heap is trimmed (2 s
    // after activity, later on a loaded machine).
    var after = 0
    let trimmed = eventually(timeout: .seconds(15 * TestTiming.slowdown), interval: .milliseconds(200)) {
      after = residentKiB(of: daemon.pid)
      return after - before < 6 * 1024
    }
    #expect(trimmed, "RSS \(before) KiB -> \(after) KiB after 150 more connections")
  }
}
