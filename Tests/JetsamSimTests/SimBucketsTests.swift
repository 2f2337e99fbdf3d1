import JetsamSim
import Testing

/// The report's buckets: bounded whatever the duration, tiling the run, and adding up to the report's totals.
@Suite struct SimBucketsTests {
  static func run(apps: Int, seconds: Int64, seed: UInt64 = 3) throws -> SimReport {
    let model = try #require(try BuiltInModels.model(named: "phone-4gb"))
    var simulation = Simulation(model: model, apps: apps, duration: .seconds(seconds), seed: seed)
    return simulation.run()
  }

  /// Runs (seconds) and the buckets each is cut into: a second each below `most` seconds, else `most`.
  static let runs: [(seconds: Int64, buckets: Int)] = [(90, 90), (6 * 3600, 288), (3 * 86_400 + 7, 288)]

  @Test(arguments: runs)
  func bucketsAreBoundedAndTileTheRun(seconds: Int64, expected: Int) throws {
    let report = try Self.run(apps: 50, seconds: seconds)
    #expect(report.buckets.count == expected)
    #expect(report.buckets.count <= SimReport.Bucket.most)
    #expect(report.buckets.first?.startSeconds == 0)
    for (earlier, later) in zip(report.buckets, report.buckets.dropFirst()) {
      #expect(abs(earlier.startSeconds + earlier.seconds - later.startSeconds) < 1e-6)
    }
    let last = try #require(report.buckets.last)
    #expect(abs(last.startSeconds + last.seconds - report.durationSeconds) < 1e-6)
    #expect(last.seconds > 0)
  }

  @Test func bucketsAddUpToTheTotals() throws {
    let report = try Self.run(apps: 300, seconds: 6 * 3600)
    #expect(report.kills.total > 0)
    var kills: [String: Int] = [:]
    var levels: [String: Double] = [:]
    for bucket in report.buckets {
      kills.merge(bucket.killsByReason, uniquingKeysWith: +)
      levels.merge(bucket.secondsAtLevel, uniquingKeysWith: +)
      // Each bucket's time is all spent at some level.
      #expect(abs(bucket.secondsAtLevel.values.reduce(0, +) - bucket.seconds) < 1e-6)
      #expect(!bucket.killsByReason.values.contains(0) && !bucket.secondsAtLevel.values.contains(0))
    }
    #expect(kills == report.kills.byReason)
    for (level, seconds) in report.secondsAtLevel {
      #expect(abs((levels[level] ?? 0) - seconds) < 1e-6, "\(level)")
    }
    // Pressure came and went: some buckets spent time above normal, some not.
    #expect(report.buckets.contains { ($0.secondsAtLevel["normal"] ?? 0) < $0.seconds })
  }

  @Test func theSameSeedGivesTheSameBuckets() throws {
    let first = try Self.run(apps: 300, seconds: 2 * 3600, seed: 11)
    let second = try Self.run(apps: 300, seconds: 2 * 3600, seed: 11)
    #expect(first.buckets == second.buckets)
    #expect(first.buckets != (try Self.run(apps: 300, seconds: 2 * 3600, seed: 12)).buckets)
  }
}
