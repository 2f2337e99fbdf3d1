import Foundation
import JetsamDaemonProcess
import JetsamTestKit

/// The simulator's scale: the built `jetsam-sim` with its default built-in model for a simulated day, at 1,000,
/// 10,000 and 100,000 apps (the targets: 100,000 apps in under two minutes on this machine, at most 20 times
/// what 10,000 cost), whether two runs with the same seed print the same figures, and the core's events per second
/// at 1,000 and 100,000 apps (what a change to `JetsamPolicy` is judged by, before and after).
struct SimResult: Sendable {
  /// One timed run of the whole program.
  struct Run: Sendable {
    var seconds: Double
    /// Calls into `JetsamPolicy.handle` the run made: its report's `policyEvents`, the same for every run of the same
    /// seed, so that only the wall time varies between runs.
    var policyEvents: Int

    /// The policy events over the whole program's wall seconds: its start, the population's configuration and the
    /// report's encoding are in the time, so this is a floor on the core's own rate, comparable between builds.
    var eventsPerSecond: Double? { seconds > 0 ? Double(policyEvents) / seconds : nil }
  }

  /// The 1,000-app runs (they take well under a second, so the fastest of a few is the one start-up noise moved
  /// least), the two 10,000-app runs (same seed), and the 100,000-app run.
  var tiny: [Run] = []
  var small: [Run] = []
  var large = Run(seconds: 0, policyEvents: 0)
  /// Whether the two 10,000-app runs printed the same JSON.
  var sameFigures = false
  /// Kills in the 100,000-app run, to show it did something.
  var largeKills = 0

  /// The fastest of the 1,000-app runs.
  var fastestTiny: Run? { tiny.min { $0.seconds < $1.seconds } }

  /// What 100,000 apps cost against 10,000 (the faster of the two smaller runs).
  var ratio: Double? { small.map(\.seconds).min().flatMap { $0 > 0 ? large.seconds / $0 : nil } }
}

enum SimBench {
  static let tinyApps = 1_000
  static let tinyRuns = 3
  static let smallApps = 10_000
  static let largeApps = 100_000
  static let duration = "1d"
  /// The targets: wall seconds for the large run, and its cost against the small one.
  static let largeTargetSeconds = 120.0
  static let ratioTarget = 20.0

  static func measure(binaries: Binaries) throws -> SimResult {
    let program = binaries.directory + "/jetsam-sim"
    guard FileManager.default.isExecutableFile(atPath: program) else {
      throw BenchError("\(program) is missing: build the release products first (swift build -c release)")
    }
    var result = SimResult()
    for _ in 0..<tinyRuns { result.tiny.append(try run(program, apps: tinyApps).run) }
    var outputs: [String] = []
    for _ in 0..<2 {
      let timed = try run(program, apps: smallApps)
      result.small.append(timed.run)
      outputs.append(timed.output)
    }
    result.sameFigures = outputs[0] == outputs[1]
    let large = try run(program, apps: largeApps)
    result.large = large.run
    result.largeKills = (large.report["kills"] as? [String: Any])?["total"] as? Int ?? 0
    return result
  }

  /// One run: its wall seconds and policy events, its JSON report as printed and as decoded.
  private static func run(_ program: String, apps: Int) throws -> (
    run: SimResult.Run, output: String, report: [String: Any]
  ) {
    let started = MonotonicTime.now()
    let result = try runCommand(
      program, ["--apps", "\(apps)", "--duration", duration, "--seed", "1", "--json"], timeout: .seconds(900))
    let seconds = MonotonicTime.seconds(since: started)
    guard result.status == 0 else {
      throw BenchError("jetsam-sim --apps \(apps) exited with \(result.status): \(result.stderr)")
    }
    guard let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
      let events = report["policyEvents"] as? Int
    else {
      throw BenchError("jetsam-sim --apps \(apps) printed no policyEvents in its JSON report")
    }
    return (SimResult.Run(seconds: seconds, policyEvents: events), result.stdout, report)
  }
}
