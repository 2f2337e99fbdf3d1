import JetsamCore
import Testing

@Suite struct BandTests {
  @Test func bandsFollowTheStateAndNotRunningAppsAreIdle() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.configure(app: "a", bandFloor: .audio, launchCount: 0))
    #expect(policy.app(named: "a")?.band == .idle)
    try policy.start("b", pid: 11, at: t(1), foreground: true)
    #expect(policy.app(named: "b")?.band == .foreground)
    _ = try policy.handle(.moveToBackground(app: "b", at: t(2)))
    #expect(policy.app(named: "b")?.band == .background)
    _ = try policy.handle(.suspend(app: "b", at: t(3)))
    #expect(policy.app(named: "b")?.band == .idle)
  }

  @Test func aFloorLiftsTheBandButNeverLowersIt() throws {
    var policy = JetsamPolicy()
    try policy.start("mail", pid: 10, at: t(1), floor: .mail)
    #expect(policy.app(named: "mail")?.band == .mail)
    _ = try policy.handle(.activate(app: "mail", at: t(2)))
    #expect(policy.app(named: "mail")?.band == .foreground)
  }

  @Test func anAudioAppKeepsItsPlaceInLineAcrossForegroundAndBackground() throws {
    var policy = JetsamPolicy()
    try policy.start("music", pid: 10, at: t(1), foreground: true, floor: .audio)
    _ = try policy.handle(.moveToBackground(app: "music", at: t(5)))
    let app = try #require(policy.app(named: "music"))
    #expect(app.band == .audio)
    #expect(app.bandEnteredAt == t(1))
    #expect(app.stateEnteredAt == t(5))
  }

  @Test func aPlainAppRestartsItsBandClockOnEveryBandChange() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    _ = try policy.handle(.moveToBackground(app: "a", at: t(5)))
    let app = try #require(policy.app(named: "a"))
    #expect(app.bandEnteredAt == t(5))
    #expect(app.stateEnteredAt == t(5))
  }
}
