import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The CPU monitor on real processes: a C app spinning in the background is killed as soon as it reaches the fatal
/// limit, with its figures in iOS's words; one using a share of a core under it gets a non-fatal exception and
/// lives; the spinner holding a processing task on a charging device is left alone.
@Suite(
  "CPU monitor on real apps", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct CPUMonitorIntegrationTests {
  /// Fatal at a tenth of a core over 4 s; background apps are never suspended on their own. (Low, so that a
  /// spinner reaches it even when a loaded machine gives it well under a whole core: the tests run six at a time,
  /// one of them beside four busy loops, on two cores.)
  static let config = """
    {
      cpuMonitor: { background: { fatal: { limit: 10, window: "4s" }, nonFatal: null } },
      suspend: { backgroundGrace: null },
    }
    """

  @Test("a spinning C app is killed on reaching the fatal limit, in iOS's words; its paced twin is not flagged")
  func spinnerIsKilled() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    // The fixed twin: the same work spread out, 5 % of a core.
    let twin = try daemon.launch("paced", ["spin", "--share", "5"], options: ["--background"])
    let pid = try daemon.launch("spinner", ["spin"], options: ["--background"])
    let record = try #require(try daemon.waitForRecords(1, timeout: 30).first)
    #expect(record.evidence.diagnostics?.count == 1, "its CPU exception, taken before the kill")
    #expect(record.pid == pid)
    #expect(record.cause.reason == .cpuResourceLimit)
    #expect(record.cause.terminationReason == "JETSAM cpu-limit")
    #expect(record.cause.endedBy == .jetsam)
    #expect(try daemon.jetsamKills(once: 1) == [.cpuResourceLimit: 1])
    #expect(record.lifecycle.state == .background)
    #expect(record.cause.signal == 9)
    let usage = try #require(record.evidence.cpuUsage)
    #expect(usage.state == .background && usage.windowSeconds == 4 && usage.limitPercent == 10)
    #expect(usage.cpuSeconds >= 0.4, "10 % of a core over 4 s: 0.4 CPU-second")
    #expect(usage.fatal && usage.sampledSeconds <= 4, "killed within the window, not at its end or later")
    #expect(usage.summary.hasSuffix("exceeding limit of 10% cpu over 4 seconds"), "\(usage.summary)")
    let listed = try daemon.ctl(["exits"])
    #expect(listed.stdout.contains("CPU: \(usage.summary)"), "\(listed.stdout)")
    #expect(isAlive(twin) && (cpuSeconds(of: twin) ?? 0) > 0, "the twin ran all along")
    #expect(try daemon.recordsOnDisk().map(\.app) == ["spinner"])
    let twinDiagnostics = try daemon.ctl(["--json", "diagnostics", "--app", "paced"])
    #expect(!twinDiagnostics.stdout.contains("cpuExceptionDiagnostics"), "\(twinDiagnostics.stdout)")
    #expect(record.usage.cpuSeconds >= usage.cpuSeconds, "the app's whole life used at least the window's time")
    #expect(!isAlive(pid))
  }

  @Test("an app using 60 % of a core for three (scaled) minutes gets a non-fatal CPU exception and lives")
  func nonFatalException() throws {
    // iOS's limits scaled by 0.05 (80 % over 3 s, fatal; 180 s is 9 s), the non-fatal one at 15 % rather than
    // 50 %, so that the app reaches it even when a loaded machine gives it far less than its 60 %.
    let daemon = try DaemonHarness(
      config: """
        {
          timeScale: 0.05,
          cpuMonitor: { background: { fatal: { limit: 80, window: "60s" }, nonFatal: { limit: 15, window: "180s" } } },
          suspend: { backgroundGrace: null },
        }
        """)
    defer { daemon.stop() }
    let pid = try daemon.launch("indexer", ["spin", "--share", "60"], options: ["--background"])
    try daemon.waitUntil("a CPU exception diagnostic", timeout: 60) {
      let json = try daemon.ctl(["--json", "diagnostics", "--app", "indexer"])
      return json.stdout.contains("cpuExceptionDiagnostics")
    }
    let payload = try DiagnosticsIntegrationTests.payload(daemon, app: "indexer")
    let meta = try #require(payload.cpuExceptionDiagnostics?.first?.diagnosticMetaData)
    #expect(meta.jetsamCPUFatal == false && meta.jetsamCPULimitPercent == 15 && meta.jetsamCPUWindowSeconds == 9)
    #expect(meta.jetsamCPUSummary?.hasSuffix("exceeding limit of 15% cpu over 9 seconds") == true)
    // Three scaled minutes on (9 s), under the fatal limit all along: alive, nothing recorded.
    let busyFrom = try #require(cpuSeconds(of: pid))
    Thread.sleep(forTimeInterval: 9)
    #expect((cpuSeconds(of: pid) ?? 0) - busyFrom > 0.5, "it did burn a share of a core all along")
    #expect(isAlive(pid))
    #expect(try daemon.recordsOnDisk().isEmpty)
    #expect(try DiagnosticsIntegrationTests.payload(daemon, app: "indexer").cpuExceptionDiagnostics?.count == 1)
  }

  @Test("a processing task is left alone while the device charges, and watched again once it stops charging")
  func processingTaskWhileCharging() throws {
    // A background budget longer than the test: unplugged, the task is an ordinary one, and one past its budget
    // would be ended for that (backgroundTaskAssertionTimeout) before the CPU monitor's verdict.
    let daemon = try DaemonHarness(
      config: """
        {
          cpuMonitor: { background: { fatal: { limit: 10, window: "4s" } } },
          suspend: { backgroundGrace: null }, backgroundTasks: { budget: "10m" },
        }
        """)
    defer { daemon.stop() }
    let device = try daemon.ctlJSON(DeviceInfo.self, ["device", "charging", "on"])
    #expect(device.charging)
    let pid = try daemon.launch("indexer", ["spin", "--processing-task", "reindex"], options: ["--background"])
    // Well past the window (4 s) on a charging device: still running, nothing recorded.
    let busyFrom = try #require(cpuSeconds(of: pid))
    Thread.sleep(forTimeInterval: 8 * TestTiming.slowdown)
    #expect((cpuSeconds(of: pid) ?? 0) - busyFrom > 0.8, "it did spin all along (over the limit's 10 %)")
    #expect(isAlive(pid))
    #expect(try daemon.recordsOnDisk().isEmpty)
    #expect(try daemon.apps()["indexer"]?.status.state == .background)
    // Unplugged, the task is an ordinary one: the monitor catches the app.
    #expect(try daemon.ctlJSON(DeviceInfo.self, ["device", "charging", "off"]).charging == false)
    let record = try #require(try daemon.waitForRecords(1, timeout: 30).first)
    #expect(record.pid == pid && record.cause.reason == .cpuResourceLimit)
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
