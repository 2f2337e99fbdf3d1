import JetsamCore
import JetsamValues
import Testing

/// Returns to the foreground without a relaunch: how long the app was away and suspended (in the events of its
/// return), and whether what it showed then was still current (`fresh`) or its saved state past `validFor`
/// (`stale`).
@Suite("Resumption verdicts")
struct ResumptionTests {
  /// An app in the foreground from t(0), backgrounded at t(1) where it saves `saved` (valid for `validFor`),
  /// suspended at t(2) (stopped at once), then activated at `back`.
  static func returned(saved: String, validFor: Duration?, back: Instant) throws -> (JetsamPolicy, [AppEvent]) {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(0), foreground: true)
    _ = try policy.handle(.moveToBackground(app: "a", at: t(1)))
    policy.reportDigest("a", .saved, saved, validFor: validFor, at: t(1))
    _ = try policy.handle(.suspend(app: "a", at: t(2)))
    policy.observe(.suspendCompleted(app: "a", at: t(2)))
    let events = try policy.handle(.activate(app: "a", at: back)).events
    return (policy, events)
  }

  @Test("the return's events say how long the app was away and how long of that it was suspended")
  func returnEventsCarryTheirDurations() throws {
    var (policy, events) = try Self.returned(saved: "s1", validFor: nil, back: t(20))
    #expect(events.map(\.kind) == [.willEnterForeground, .didBecomeActive])
    for event in events {
      #expect(event.backgroundFor == .seconds(19), "away from t(1), the willResignActive/didEnterBackground")
      #expect(event.suspendedFor == .seconds(18), "stopped from t(2)")
    }
    // The next stay away starts over: a second away of 1 s, never suspended.
    _ = try policy.handle(.moveToBackground(app: "a", at: t(21)))
    let second = try policy.handle(.activate(app: "a", at: t(22))).events
    #expect(second.map(\.backgroundFor) == [.seconds(1), .seconds(1)])
    #expect(second.map(\.suspendedFor) == [.zero, .zero])
  }

  @Test("a return that shows the saved state after it expired is stale; the first stale return is kept")
  func stale() throws {
    var (policy, _) = try Self.returned(saved: "s1", validFor: .seconds(10), back: t(20))
    let judged = policy.reportDigest("a", .resumed, "s1", at: t(20))
    let expected = ResumptionJudgement(
      verdict: .stale, savedDigest: "s1", resumedDigest: "s1", stateAgeSeconds: 19, validForSeconds: 10)
    #expect(judged == [.resumptionJudged(app: "a", launch: 1, judgement: expected)])
    #expect(policy.app(named: "a")?.resumption == expected)
    // A later fresh return is told, but the launch keeps its stale verdict: a bug seen stays seen.
    _ = try policy.handle(.moveToBackground(app: "a", at: t(21)))
    policy.reportDigest("a", .saved, "s2", validFor: .seconds(10), at: t(21))
    _ = try policy.handle(.activate(app: "a", at: t(25)))
    let fresh = policy.reportDigest("a", .resumed, "s2", at: t(25))
    #expect(fresh.count == 1)
    #expect(policy.app(named: "a")?.resumption?.verdict == .stale)
    let record = try #require(policy.exits("a", .signaled(signal: 9, dumpedCore: false), at: t(30)).records.first)
    #expect(record.savedState.resumption == .stale && record.savedState.resumedDigest == "s1")
    #expect(record.savedState.resumedStateAgeSeconds == 19 && record.savedState.resumedStateValidForSeconds == 10)
    #expect(record.savedState.hasVerdict)
  }

  @Test(
    "a return that refreshed, or came back while the state was current, is fresh",
    arguments: [("s1-refreshed", t(20)), ("s1", t(5))])
  func fresh(_ shown: String, _ back: Instant) throws {
    var (policy, _) = try Self.returned(saved: "s1", validFor: .seconds(10), back: back)
    policy.reportDigest("a", .resumed, shown, at: back)
    #expect(policy.app(named: "a")?.resumption?.verdict == .fresh)
  }

  @Test("without a validFor there is nothing to judge a return against")
  func noValidity() throws {
    var (policy, _) = try Self.returned(saved: "s1", validFor: nil, back: t(20))
    #expect(policy.reportDigest("a", .resumed, "s1", at: t(20)).isEmpty)
    #expect(policy.app(named: "a")?.resumption == nil)
    let record = try #require(policy.exits("a", .exited(code: 0), at: t(21)).records.first)
    #expect(record.savedState.resumption == nil && !record.savedState.hasVerdict)
  }

  @Test("a resumed app's verdict and validity survive a daemon restart (re-adoption)")
  func adoption() throws {
    let (policy, _) = try Self.returned(saved: "s1", validFor: .seconds(10), back: t(20))
    let status = try #require(policy.app(named: "a"))
    var adopted = AppStatus(
      name: "a", state: status.state, bandFloor: nil, pid: 10, launch: status.launch,
      stateEnteredAt: status.stateEnteredAt, bandEnteredAt: status.bandEnteredAt, spawnedAt: t(0))
    adopted.savedDigest = status.savedDigest
    adopted.savedAt = status.savedAt
    adopted.savedValidUntil = status.savedValidUntil
    #expect(adopted.savedValidUntil == t(11))
    var successor = JetsamPolicy()
    _ = try successor.handle(.configure(app: "a", bandFloor: nil, launchCount: 0))
    successor.observe(.adopt(app: adopted, at: t(20)))
    successor.reportDigest("a", .resumed, "s1", at: t(20))
    #expect(successor.app(named: "a")?.resumption?.verdict == .stale)
  }
}
