import Testing

@testable import JetsamCore

/// Launching ever new ad-hoc names cannot grow the policy without bound: ended ad-hoc apps are remembered up to
/// ``PolicyConfig/rememberedEndedApps``, the longest ended forgotten first; configured apps always stay.
@Suite("Remembered ended apps")
struct RememberedAppsTests {
  /// Launches `name`, lets it exit at `at`, and reports its record durable; returns the actions of that report.
  private func runAndEnd(_ policy: inout JetsamPolicy, _ name: String, adHoc: Bool, at: Int64) throws -> [PolicyAction]
  {
    _ = try policy.handle(
      .configure(app: name, settings: AppSettings(launch: LaunchSpec(command: [name]), adHoc: adHoc), launchCount: 0))
    _ = try policy.handle(.launch(app: name, foreground: false, at: t(at)))
    policy.observe(.spawned(app: name, pid: Int32(100 + at), at: t(at)))
    let record = try #require(policy.exits(name, .exited(code: 0), at: t(at, ms: 500)).records.first)
    return policy.observe(.exitRecorded(record))
  }

  private var forgotten: ([PolicyAction]) -> [String] {
    { actions in actions.compactMap { if case .forget(let app) = $0 { app } else { nil } } }
  }

  @Test("past the limit the ad-hoc app that ended longest ago is forgotten, with its last exit")
  func forgetsTheOldest() throws {
    var config = testConfig()
    config.rememberedEndedApps = 2
    var policy = JetsamPolicy(config: config)
    #expect(forgotten(try runAndEnd(&policy, "configured", adHoc: false, at: 1)).isEmpty)
    #expect(forgotten(try runAndEnd(&policy, "a", adHoc: true, at: 2)).isEmpty)
    #expect(forgotten(try runAndEnd(&policy, "b", adHoc: true, at: 3)).isEmpty)
    #expect(forgotten(try runAndEnd(&policy, "c", adHoc: true, at: 4)) == ["a"])
    #expect(policy.app(named: "a") == nil && policy.lastExit(of: "a") == nil)
    #expect(policy.app(named: "b") != nil && policy.lastExit(of: "b") != nil)
    // b runs again: it is not forgotten while it runs, and its new end counts from now.
    _ = try policy.handle(.launch(app: "b", foreground: false, at: t(5)))
    #expect(forgotten(try runAndEnd(&policy, "d", adHoc: true, at: 6)).isEmpty, "b runs, so c and d fill the two")
    #expect(forgotten(try runAndEnd(&policy, "e", adHoc: true, at: 7)) == ["c"])
    #expect(policy.app(named: "configured") != nil, "a configured app is never forgotten")
    #expect(policy.lastExit(of: "configured") != nil)
    #expect(policy.apps.count == 4, "configured, b (running), d, e")
  }

  @Test("names known only from earlier runs' records count as ended ad-hoc apps")
  func recordsOfEarlierRuns() throws {
    var config = testConfig()
    config.rememberedEndedApps = 1
    var policy = JetsamPolicy(config: config)
    _ = try policy.handle(.configure(app: "configured", bandFloor: nil, launchCount: 0))
    let old = try #require(try runAndEnd(&policy, "x", adHoc: true, at: 1).isEmpty ? policy.lastExit(of: "x") : nil)
    var fresh = JetsamPolicy(config: config)
    _ = try fresh.handle(.configure(app: "configured", bandFloor: nil, launchCount: 0))
    var configuredRecord = old
    configuredRecord.app = "configured"
    var other = old
    other.app = "y"
    #expect(forgotten(fresh.observe(.exitRecorded(old))).isEmpty)
    #expect(forgotten(fresh.observe(.exitRecorded(configuredRecord))).isEmpty)
    #expect(forgotten(fresh.observe(.exitRecorded(other))) == ["x"])
    #expect(fresh.lastExit(of: "configured") != nil && fresh.lastExit(of: "y") != nil && fresh.lastExit(of: "x") == nil)
  }
}
