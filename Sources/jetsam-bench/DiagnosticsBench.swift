import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamTestKit

/// What diagnostics cost: one call-stack capture of a 20-thread app (jetsam-stack, as jetsamd runs it), and the CPU
/// monitor's sampling with 200 watched apps (jetsamd's CPU with the monitor on, against the same fleet with it off).
struct DiagnosticsResult: Sendable {
  var threads = DiagnosticsBench.threads
  /// Wall time of one capture, start to exit (ms).
  var capture = Distribution([])
  var framesPerCapture = 0
  var watchedApps = DiagnosticsBench.watchedApps
  /// jetsamd's CPU in percent of one core over the window: with the monitor at iOS's 60 s window (a sampling round
  /// every 5 s), at a 12 s window (every second), and without it.
  var monitorDefault = 0.0
  var monitorFast = 0.0
  var monitorOff = 0.0
}

enum DiagnosticsBench {
  static let threads = 20
  static let captures = 20
  static let watchedApps = 200
  static let measuredSeconds = 30.0

  static func measure(binaries: Binaries, root: String) throws -> DiagnosticsResult {
    var result = DiagnosticsResult()
    try measureCaptures(binaries, into: &result)
    progress("CPU monitor: \(watchedApps) watched apps at 60 s and 12 s windows, and the same apps unwatched")
    result.monitorDefault = try daemonCPU(binaries, root: root, label: "monitor-60s", window: 60)
    result.monitorFast = try daemonCPU(binaries, root: root, label: "monitor-12s", window: 12)
    result.monitorOff = try daemonCPU(binaries, root: root, label: "monitor-off", window: nil)
    return result
  }

  /// Times `captures` runs of jetsam-stack on a process of `threads` threads.
  private static func measureCaptures(_ binaries: Binaries, into result: inout DiagnosticsResult) throws {
    let app = try ChildProcess(binaries.testapp, ["threads", String(threads)])
    defer { _ = app.stop(signal: SIGKILL) }
    // Every thread started (the kernel lists them under /proc/PID/task).
    let started = MonotonicTime.now()
    while ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(app.pid)/task").count) ?? 0) < threads {
      guard MonotonicTime.seconds(since: started) < 5 else {
        throw BenchError("the \(threads)-thread app did not start")
      }
      MonotonicTime.sleep(milliseconds: 10)
    }
    let tool = binaries.directory + "/jetsam-stack"
    var times: [Double] = []
    for _ in 0..<captures {
      let start = MonotonicTime.now()
      let run = try runCommand(tool, [String(app.pid)])
      times.append(MonotonicTime.milliseconds(from: start, to: MonotonicTime.now()))
      guard run.status == 0, run.stdout.components(separatedBy: "\nthread\t").count - 1 == threads else {
        throw BenchError("jetsam-stack on \(threads) threads: status \(run.status): \(run.stdout.prefix(300))")
      }
      result.framesPerCapture = run.stdout.components(separatedBy: "\nframe\t").count - 1
    }
    result.capture = Distribution(times)
  }

  /// jetsamd's CPU (percent of a core) over ``measuredSeconds`` with ``watchedApps`` idle background apps, watched
  /// with a budget over `window` seconds (nil: not watched). From utime + stime, which count every thread that ran
  /// (helper threads come and go), in clock ticks: over 30 s, to within 0.03 %.
  private static func daemonCPU(_ binaries: Binaries, root: String, label: String, window: Int?) throws -> Double {
    let budget = window.map { "{ fatal: { limit: 80, window: \"\($0)s\" }, nonFatal: null }" } ?? "null"
    let daemon = try JetsamdInstance(
      binaries: binaries, label: label, root: root, device: "ram: \"4G\"",
      extra: "suspend: { backgroundGrace: null }, cpuMonitor: { background: \(budget) },")
    defer { daemon.stop() }
    let client = try daemon.client()
    for index in 0..<watchedApps {
      _ = try client.launch("watched-\(index)", command: [binaries.testapp, "idle"], background: true)
    }
    // Launches settled, and the first sampling rounds done.
    MonotonicTime.sleep(milliseconds: 3000)
    return IdleCost.measure(pids: [daemon.pid], seconds: measuredSeconds)[0].cpuPercentTicks
  }
}
