import JetsamSim
import Testing

/// The simulation itself: deterministic, and its figures hang together.
@Suite struct SimulationTests {
  static func run(apps: Int = 300, hours: Int64 = 6, seed: UInt64) throws -> SimReport {
    let model = try #require(try BuiltInModels.model(named: "phone-4gb"))
    var simulation = Simulation(model: model, apps: apps, duration: .seconds(hours * 3600), seed: seed)
    return simulation.run()
  }

  @Test func theSameSeedGivesTheSameReport() throws {
    #expect(try Self.run(seed: 7) == Self.run(seed: 7))
  }

  /// The count `make bench` divides by the wall time: the same work for every run of a seed, whatever the machine.
  @Test func theSameSeedFeedsThePolicyTheSameEvents() throws {
    let first = try Self.run(seed: 11)
    let second = try Self.run(seed: 11)
    #expect(first.policyEvents > 0)
    #expect(first.policyEvents == second.policyEvents)
    // Every app is configured through the policy before the run: at least one event each.
    #expect(first.policyEvents >= first.apps)
  }

  @Test func anotherSeedGivesOtherFigures() throws {
    #expect(try Self.run(seed: 7) != Self.run(seed: 8))
  }

  @Test func figuresAddUp() throws {
    let report = try Self.run(seed: 3)
    // A 4 GB phone switching among 300 apps for six hours comes under pressure and kills.
    #expect(report.kills.total > 0)
    #expect(report.kills.byReason.values.reduce(0, +) == report.kills.total)
    #expect(report.kills.byState.values.reduce(0, +) == report.kills.total)
    #expect(report.launches.coldAfterJetsam <= report.kills.total)
    let levels = report.secondsAtLevel.values.reduce(0, +)
    #expect(abs(levels - report.durationSeconds) < 0.001)
    #expect(report.resident.min <= report.resident.max)
    #expect(report.resident.timeline.count > 100)
  }
}
