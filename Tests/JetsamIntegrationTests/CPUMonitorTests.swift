import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import Testing

/// The CPU monitor on real processes: a C app spinning in the background is caught, reported and killed; the same
/// app holding a processing task on a charging device is left alone.
@Suite(
  "CPU monitor on real apps", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)))
struct CPUMonitorIntegrationTests {
  /// A quarter of a core over 4 s, killed 2 s after the exception; background apps are never suspended on their own.
  /// (Low, so that a spinner goes over it even when a loaded machine gives it well under a whole core.)
  static let config = """
    {
      cpuMonitor: { background: { limit: 25, window: "4s", killAfter: "2s" } },
      suspend: { backgroundGrace: null },
    }
    """

  @Test("a C app spinning in the background gets a CPU exception, then a cpuResourceLimit record with its figures")
  func spinnerIsKilled() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let pid = try daemon.launch("spinner", ["spin"], options: ["--background"])
    let record = try #require(try daemon.waitForRecords(1, timeout: 30).first)
    #expect(record.pid == pid)
    #expect(record.reason == .cpuResourceLimit)
    #expect(record.terminationReason == "JETSAM cpu-limit")
    #expect(record.endedBy == .jetsam)
    #expect(try daemon.jetsamKills(once: 1) == [.cpuResourceLimit: 1])
    #expect(record.state == "background")
    #expect(record.signal == 9)
    let usage = try #require(record.cpuUsage)
    #expect(usage.state == "background" && usage.windowSeconds == 4 && usage.limitPercent == 25)
    #expect(usage.cpuSeconds > 1, "over 25 % of a core in 4 s: more than 1 CPU-second")
    #expect(usage.overSeconds >= 2, "killed only after it stayed over for killAfter")
    #expect(record.cpuSeconds >= usage.cpuSeconds, "the app's whole life used at least the window's time")
    #expect(!isAlive(pid))
  }

  @Test("a processing task is left alone while the device charges, and watched again once it stops charging")
  func processingTaskWhileCharging() throws {
    // A background budget longer than the test: unplugged, the task is an ordinary one, and one past its budget
    // would be ended for that (backgroundTaskAssertionTimeout) before the CPU monitor's verdict.
    let daemon = try DaemonHarness(
      config: """
        {
          cpuMonitor: { background: { limit: 25, window: "4s", killAfter: "2s" } },
          suspend: { backgroundGrace: null }, backgroundTasks: { budget: "10m" },
        }
        """)
    defer { daemon.stop() }
    let device = try daemon.ctlJSON(DeviceInfo.self, ["device", "charging", "on"])
    #expect(device.charging)
    let pid = try daemon.launch("indexer", ["spin", "--processing-task", "reindex"], options: ["--background"])
    // Well past window + killAfter (6 s) on a charging device: still running, nothing recorded.
    let busyFrom = try #require(cpuSeconds(of: pid))
    Thread.sleep(forTimeInterval: 8 * TestTiming.slowdown)
    #expect((cpuSeconds(of: pid) ?? 0) - busyFrom > 2, "it did spin all along (over the budget's 25 %)")
    #expect(isAlive(pid))
    #expect(try daemon.recordsOnDisk().isEmpty)
    #expect(try daemon.apps()["indexer"]?.lifecycleState == .background)
    // Unplugged, the task is an ordinary one: the monitor catches the app.
    #expect(try daemon.ctlJSON(DeviceInfo.self, ["device", "charging", "off"]).charging == false)
    let record = try #require(try daemon.waitForRecords(1, timeout: 30).first)
    #expect(record.pid == pid && record.reason == .cpuResourceLimit)
    // The lab's switch survives a jetsamd crash and restart (the state file). (Not an adopted app's open tasks:
    // those are not kept across a restart, so its processing task's exemption would end there.)
    try daemon.ctl(["device", "charging", "on"])
    try daemon.waitUntil("the switch in the state file") {
      ((try? String(contentsOfFile: daemon.stateDirectory + "/state.json", encoding: .utf8)) ?? "")
        .contains("\"deviceCharging\":true")
    }
    try daemon.restart()
    #expect(try daemon.ctlJSON(DeviceInfo.self, ["device"]).charging)
  }
}
