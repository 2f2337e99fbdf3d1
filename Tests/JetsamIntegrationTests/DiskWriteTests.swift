import Foundation
import Glibc
import JetsamCore
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// The disk-write monitor on real processes: an app writing past a small limit gets a disk-write exception
/// diagnostic in MetricKit's layout, and lives; its fixed twin, writing under the limit, gets none.
@Suite(
  "Disk-write exceptions of real apps", .serialized,
  .enabled(if: isRoot, "needs root: jetsamd creates cgroups and ptraces"), .timeLimit(.minutes(2)), .offThePool)
struct DiskWriteIntegrationTests {
  /// 1 MiB within 10 s (read every 833 ms); background apps never suspended on their own.
  static let config =
    "{ diskWriteMonitor: { limit: \"1M\", window: \"10s\" }, suspend: { backgroundGrace: null }, "
    + DiagnosticsIntegrationTests.captureBudget + " }"

  /// A Python app appending `chunk` bytes to `file` `times` times (forever when nil), a few times a second, then
  /// touching `done` and idling.
  static func writer(chunk: Int, times: Int?, done: String, file: String) -> [String] {
    let loop = times.map { "range(\($0))" } ?? "iter(int, 1)"
    return [
      "/usr/bin/python3", "-c",
      """
      import os, time
      def write_heavily(f):
          for _ in \(loop):
              f.write(b"x" * \(chunk))
              f.flush()
              time.sleep(0.05)
      with open("\(file)", "ab") as f:
          write_heavily(f)
      open("\(done)", "w").close()
      while True:
          time.sleep(1)
      """,
    ]
  }

  @Test("an app writing past its limit gets one disk-write exception that validates; its fixed twin gets none")
  func buggyAndFixedTwin() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    // On a disk, not the temporary directory: a write to tmpfs (as the v2 VM's /tmp is) reaches no storage, and
    // counts nothing, as on iOS writes to memory do not. /var/tmp is the VM's scratch ext4 disk, and the host's.
    let files = ["fixed", "buggy"].map { "/var/tmp/jetsam-disk-writes-\(getpid())-\($0).bin" }
    defer { for file in files { unlink(file) } }
    // The fixed twin first: 12 × 64 KiB = 768 KiB, under the 1 MiB limit, then it says it is done.
    let fixedDone = daemon.directory + "/fixed-done"
    let fixed = try #require(
      try daemon.ctlJSON(
        AppInfo.self,
        ["launch", "fixed", "--background", "--"]
          + Self.writer(chunk: 64 << 10, times: 12, done: fixedDone, file: files[0])
      ).status.pid)
    try daemon.waitUntil("the fixed twin has written its 768 KiB") { access(fixedDone, F_OK) == 0 }
    // The buggy one writes 256 KiB at a time for as long as it runs: past the limit within a second.
    let buggy = try #require(
      try daemon.ctlJSON(
        AppInfo.self,
        ["launch", "buggy", "--background", "--"]
          + Self.writer(chunk: 256 << 10, times: nil, done: daemon.directory + "/never", file: files[1])
      )
      .status.pid)
    var payload: DiagnosticPayload?
    try daemon.waitUntil("a disk-write exception diagnostic of the buggy app", timeout: 30) {
      let json = try daemon.ctl(["--json", "diagnostics", "--app", "buggy"])
      guard json.status == 0, json.stdout.contains("diskWriteExceptionDiagnostics") else { return false }
      // Checked against the schema written from MetricKit's documented keys.
      payload = try DiagnosticsIntegrationTests.payload(daemon, app: "buggy")
      return true
    }
    let exception = try #require(payload?.diskWriteExceptionDiagnostics?.first)
    #expect(payload?.diskWriteExceptionDiagnostics?.count == 1, "one per window")
    let meta = exception.diagnosticMetaData
    #expect(meta.pid == buggy && meta.bundleIdentifier == "buggy")
    #expect((meta.jetsamBytesWritten ?? 0) > 1 << 20 && meta.jetsamWriteLimitBytes == 1 << 20)
    #expect(meta.jetsamWriteWindowSeconds == 10)
    #expect(meta.writesCaused?.hasSuffix(" MB") == true)
    #expect((meta.jetsamSamples ?? 0) >= 2, "several stack samples while it writes")
    let tree = try #require(exception.callStackTree, "\(meta.jetsamCaptureError ?? "no capture error")")
    #expect(!tree.callStackPerThread && tree.callStacks.count == 1)
    // Non-fatal: both apps still run, and no record was written.
    let apps = try daemon.apps()
    #expect(apps["buggy"]?.status.pid == buggy && apps["buggy"]?.status.state.coarse == .background)
    #expect(apps["fixed"]?.status.pid == fixed && apps["fixed"]?.status.state.coarse == .background)
    #expect(try daemon.recordsOnDisk().isEmpty)
    // The round that judged the buggy app also read the fixed twin, whose writes were all within the window then.
    let fixedJSON = try daemon.ctl(["--json", "diagnostics", "--app", "fixed"])
    #expect(!fixedJSON.stdout.contains("diskWriteException"), "the fixed twin stays under the limit")
    #expect(daemon.log.contains("buggy") && daemon.log.contains("diskWriteException"))
  }
}
