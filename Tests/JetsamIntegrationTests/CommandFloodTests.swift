import Foundation
import Glibc
import JetsamControlClient
import JetsamCore
import JetsamDaemonProcess
import JetsamTestKit
import JetsamTestTraits
import Testing

/// A command that prints without stopping costs the loop a slice at a time: with `--ready yes` (the real `yes`,
/// which fills its pipe as fast as the kernel takes it), another client's `status` is answered as on a quiet
/// daemon, and the run's record keeps the last bytes it printed.
@Suite(
  "Commands that print without stopping", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(2)), .offThePool)
struct CommandFloodTests {
  @Test("--ready yes leaves another client's status prompt (99th percentile); the record keeps the tail of its y lines")
  func readyYes() throws {
    let daemon = try DaemonHarness()
    defer { daemon.stop() }
    let client = try ControlClient(path: daemon.socket)
    // The same client on the same daemon without the flood: what this machine gives now.
    var quiet = StatusRoundTrips(client: client)
    for _ in 0..<200 { try quiet.time() }

    let launched = try daemon.ctl(["launch", "y", "--ready", "yes", "--", "/bin/sleep", "1000"])
    #expect(launched.status == 0, "\(launched.stderr)")
    // Timed for 3 s from the launch: within the first run of `yes`, which is killed at its 5 s timeout.
    var flooded = StatusRoundTrips(client: client)
    let start = MonotonicTime.now()
    while MonotonicTime.seconds(since: start) < 3 { try flooded.time() }

    let p99 = flooded.percentile(99)
    let quietP99 = quiet.percentile(99)
    let slowest = flooded.seconds.max() ?? 0
    print(
      String(
        format: "--ready yes: status p99 %.2f ms, max %.2f ms over %d round trips (quiet: p99 %.2f ms)", p99 * 1000,
        slowest * 1000, flooded.seconds.count, quietP99 * 1000))
    // A sanity bound, not the target (5 ms, what `make bench` measures): the suites beside this one load the
    // machine unevenly. Reading until the pipe ran dry held status for up to 200 ms.
    #expect(
      p99 <= max(0.050 * TestTiming.slowdown, 5 * quietP99),
      "status p99 \(p99 * 1000) ms while yes floods, \(quietP99 * 1000) ms without")

    // The first run's end (its timeout) copies what it kept, its last 64 KiB, into the app's log.
    let log = daemon.stateDirectory + "/logs/y.log"
    try daemon.waitUntil("the first ready run's output in the app's log") {
      ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0) >= 65536
    }
    let copied = try Data(contentsOf: URL(fileURLWithPath: log)).prefix(65536)
    #expect(copied == Data(String(repeating: "y\n", count: 32768).utf8), "64 KiB of whole y lines")

    #expect(try daemon.ctl(["kill", "y"]).status == 0)
    let record = try #require(try daemon.waitForRecords(1).first)
    let ready = try #require(record.commands?.first { $0.run == "ready" }, "\(record)")
    // The record keeps the last poll: the first, ended by its timeout, or, where the backoff ran out before the kill
    // (a slow machine: the v2 VM), the next one, which the app's kill cut short.
    let kept = String(repeating: "y\n", count: CommandRunRecord.maxOutputBytes / 2)
    #expect(ready.signal == SIGKILL, "\(ready)")
    if ready.attempts == 1 {
      #expect(ready.timedOut == true, "\(ready)")
      #expect(ready.output == kept)
    } else {
      #expect(ready.timedOut != true, "\(ready)")
      let output = ready.output ?? ""
      #expect(kept.hasSuffix(output) && (output.isEmpty || output.hasPrefix("y")), "a tail of whole y lines")
    }
  }
}
