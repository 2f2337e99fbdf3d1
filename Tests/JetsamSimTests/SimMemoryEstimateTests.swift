import JetsamSim
import Testing

/// The estimate `jetsam-sim` refuses a population by: above every peak measured, and the refusal's words.
@Suite struct SimMemoryEstimateTests {
  static func model(_ name: String, popularity: Double? = nil) throws -> SimModel {
    var model = try #require(try BuiltInModels.model(named: name))
    if let popularity { model.popularity = popularity }
    return model
  }

  /// A peak RSS measured with `/usr/bin/time -v` on the release build (README, the jetsam-sim section).
  struct Measured: Sendable, CustomTestStringConvertible {
    var model: String
    /// Zipf exponent, when not the model's: 0 launches every app of a small population, so that all have ended.
    var popularity: Double?
    var apps: Int
    var duration: Duration
    var peakKiB: Int64
    var testDescription: String { "\(apps) apps of \(model), \(duration)" }
  }

  /// Populations just past a doubling of the policy's table (the most bytes per app), a long run where every app
  /// of a small population ended, and one on the larger phone (larger kill snapshots).
  @Test(arguments: [
    Measured(model: "phone-4gb", apps: 98_305, duration: .seconds(1), peakKiB: 244_592),
    Measured(model: "phone-4gb", apps: 1_000_000, duration: .seconds(3600), peakKiB: 2_050_072),
    Measured(model: "phone-4gb", apps: 1_572_865, duration: .seconds(1), peakKiB: 3_609_044),
    Measured(model: "phone-4gb", apps: 3_145_729, duration: .seconds(1), peakKiB: 7_197_872),
    Measured(model: "phone-4gb", apps: 10_000, duration: .seconds(365 * 86_400), peakKiB: 64_316),
    Measured(model: "phone-4gb", popularity: 0, apps: 20_000, duration: .seconds(90 * 86_400), peakKiB: 105_116),
    Measured(model: "phone-8gb", popularity: 0, apps: 20_000, duration: .seconds(90 * 86_400), peakKiB: 132_456),
  ])
  func theEstimateIsAboveTheMeasuredPeak(_ measured: Measured) throws {
    let model = try Self.model(measured.model, popularity: measured.popularity)
    let estimate = SimMemoryEstimate(model: model, apps: measured.apps, duration: measured.duration)
    #expect(estimate.bytes > measured.peakKiB * 1024)
    // And not wildly so: at most three times, or a machine that could run it would refuse it.
    #expect(estimate.bytes < measured.peakKiB * 1024 * 3)
  }

  @Test func theDocumentedMaximumNeedsTensOfGigabytes() throws {
    let estimate = SimMemoryEstimate(model: try Self.model("phone-4gb"), apps: 10_000_000, duration: .seconds(86_400))
    #expect(SimMemoryEstimate.describe(estimate.bytes) == "25.7 GB")
  }

  /// No more apps end than were launched, and no more than there are.
  @Test func endedAppsAreBoundedByLaunchesAndByThePopulation() throws {
    let model = try Self.model("phone-4gb")
    let short = SimMemoryEstimate(model: model, apps: 1_000, duration: .seconds(60))
    let day = SimMemoryEstimate(model: model, apps: 1_000, duration: .seconds(86_400))
    let year = SimMemoryEstimate(model: model, apps: 1_000, duration: .seconds(365 * 86_400))
    let fresh = SimMemoryEstimate.baseBytes + 1_000 * SimMemoryEstimate.bytesPerApp
    #expect(short.bytes > fresh)
    // A day has about 2,300 launches: every one of the 1,000 apps may have ended, and a year can end no more.
    #expect(day.bytes > short.bytes)
    #expect(year.bytes == day.bytes)
  }

  @Test func aPopulationThatFitsIsNotRefused() throws {
    let estimate = SimMemoryEstimate(model: try Self.model("phone-4gb"), apps: 10_000, duration: .seconds(86_400))
    #expect(estimate.refusal(apps: 10_000, available: estimate.bytes, source: "MemAvailable in /proc/meminfo") == nil)
  }

  @Test func aRefusalNamesWhatTheRunNeedsAndWhatThereIs() throws {
    let estimate = SimMemoryEstimate(model: try Self.model("phone-4gb"), apps: 10_000_000, duration: .seconds(86_400))
    let refusal = estimate.refusal(
      apps: 10_000_000, available: 3_100_000_000, source: "MemAvailable in /proc/meminfo")
    #expect(
      refusal
        == "--apps 10000000 needs about 25.7 GB of memory; 3.1 GB is available (MemAvailable in /proc/meminfo)")
    #expect(estimate.refusal(apps: 10_000_000, available: estimate.bytes - 1, source: "x") != nil)
  }

  @Test(arguments: [
    (Int64(0), "0 MB"), (Int64(268_435_456), "268 MB"), (Int64(999_400_000), "999 MB"),
    (Int64(1_000_000_000), "1.0 GB"), (Int64(25_664_000_000), "25.7 GB"),
  ])
  func sizesAreWrittenInDecimalUnits(bytes: Int64, text: String) {
    #expect(SimMemoryEstimate.describe(bytes) == text)
  }
}
