import Foundation
import JetsamDaemonProcess
import JetsamTestKit

/// The simulator's scale: the built `jetsam-sim` with its default built-in model for a simulated day, at 10,000 and
/// 100,000 apps (the targets: 100,000 apps in under two minutes on this machine, at most 20 times what 10,000
/// cost), and whether two runs with the same seed print the same figures.
struct SimResult: Sendable {
  /// Wall seconds of each 10,000-app run (two, same seed), and of the 100,000-app run.
  var small: [Double] = []
  var large: Double = 0
  /// Whether the two 10,000-app runs printed the same JSON.
  var sameFigures = false
  /// Kills in the 100,000-app run, to show it did something.
  var largeKills = 0

  /// What 100,000 apps cost against 10,000 (the faster of the two smaller runs).
  var ratio: Double? { small.min().flatMap { $0 > 0 ? large / $0 : nil } }
}

enum SimBench {
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
    var outputs: [String] = []
    for _ in 0..<2 {
      let (seconds, output) = try run(program, apps: smallApps)
      result.small.append(seconds)
      outputs.append(output)
    }
    result.sameFigures = outputs[0] == outputs[1]
    let (seconds, output) = try run(program, apps: largeApps)
    result.large = seconds
    let report = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    result.largeKills = (report?["kills"] as? [String: Any])?["total"] as? Int ?? 0
    return result
  }

  /// One run's wall seconds and its JSON report.
  private static func run(_ program: String, apps: Int) throws -> (seconds: Double, output: String) {
    let started = MonotonicTime.now()
    let result = try runCommand(
      program, ["--apps", "\(apps)", "--duration", duration, "--seed", "1", "--json"], timeout: .seconds(900))
    let seconds = MonotonicTime.seconds(since: started)
    guard result.status == 0 else {
      throw BenchError("jetsam-sim --apps \(apps) exited with \(result.status): \(result.stderr)")
    }
    return (seconds, result.stdout)
  }
}
