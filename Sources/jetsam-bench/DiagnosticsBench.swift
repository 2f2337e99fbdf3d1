import Foundation
import Glibc
import JetsamControlClient
import JetsamDaemonProcess
import JetsamTestKit

/// What diagnostics cost: one call-stack capture of a 20-thread app (jetsam-stack, as jetsamd runs it), another
/// client's `status` while an app floods its crash socket with forged reports, and the CPU monitor's sampling with
/// 200 watched apps (jetsamd's CPU with the monitor on, against the same fleet with it off).
struct DiagnosticsResult: Sendable {
  var threads = DiagnosticsBench.threads
  /// Wall time of one capture, start to exit (ms).
  var capture = Distribution([])
  var framesPerCapture = 0
  var floodLines = DiagnosticsBench.floodLines
  /// One client's status round trips (ms) on a quiet jetsamd, and on the same one from the flood's launch until
  /// every forged line is refused.
  var quietStatus = Distribution([])
  var floodStatus = Distribution([])
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
  /// Forged crash report lines in the flood, and the fewest status round trips timed from its launch.
  static let floodLines = 1_000
  static let floodRoundTrips = 200

  static func measure(binaries: Binaries, root: String) throws -> DiagnosticsResult {
    var result = DiagnosticsResult()
    try measureCaptures(binaries, into: &result)
    progress("a flood of \(floodLines) forged crash report lines, another client's status meanwhile")
    try measureFlood(binaries, root: root, into: &result)
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

  /// Times a client's status round trips on a quiet jetsamd, then while an app writes ``floodLines`` crash report
  /// lines naming another app's process to its crash socket (all refused: the kernel says the forger sent them),
  /// until jetsamd has counted every one refused. Background apps are never suspended here, so the forger is not
  /// stopped mid-flood.
  private static func measureFlood(_ binaries: Binaries, root: String, into result: inout DiagnosticsResult) throws {
    let daemon = try JetsamdInstance(
      binaries: binaries, label: "crash-flood", root: root, device: "ram: \"4G\"",
      extra: "suspend: { backgroundGrace: null },")
    defer { daemon.stop() }
    let control = try daemon.client()
    let timed = try daemon.client()
    let victim = try control.launch("victim", command: [binaries.testapp, "idle"], background: true)
    result.quietStatus = Distribution(try timed.statusRoundTrips { $0.count == LoadBench.roundTrips })
    let refusedBefore = try control.prometheusValue(refusedCounter)
    _ = try control.launch(
      "forger", command: [binaries.testapp, "forge-crash", String(victim), "--count", String(floodLines)],
      background: true)
    result.floodStatus = Distribution(
      try timed.statusRoundTrips { times in
        guard times.count >= floodRoundTrips, times.count % 50 == 0 else { return false }
        guard times.count < 100 * floodRoundTrips else {
          throw BenchError("the forged crash reports were not all refused after \(times.count) status round trips")
        }
        return try control.prometheusValue(refusedCounter) - refusedBefore >= Double(floodLines)
      })
  }

  /// jetsamd's count of crash report lines it refused.
  private static let refusedCounter = "jetsam_crash_reports_refused_total"

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
