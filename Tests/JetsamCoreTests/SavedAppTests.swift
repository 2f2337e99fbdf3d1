import JetsamCore
import Testing

/// The policy's saved form of a running app (what a successor daemon adopts): exported and adopted by the core
/// itself, so that what one daemon saves the next one takes back unchanged.
@Suite("Saved apps")
struct SavedAppTests {
  @Test("a suspended app with digests, a return away and a kill in flight is adopted back exactly as saved")
  func roundTrip() throws {
    var policy = JetsamPolicy()
    try policy.start("mail", pid: 10, at: t(1), foreground: true, floor: .audio)
    policy.reportDigest("mail", .saved, "s1", validFor: .seconds(60), at: t(2))
    _ = try policy.handle(.moveToBackground(app: "mail", at: t(3)))
    _ = try policy.handle(.suspend(app: "mail", at: t(4)))
    policy.observe(.suspendCompleted(app: "mail", at: t(5)))
    _ = try policy.handle(.kill(app: "mail", reason: .memoryPressure, at: t(6)))
    try policy.start("maps", pid: 20, at: t(7))

    let saved = policy.savedApps
    #expect(saved.map(\.name) == ["mail", "maps"])
    let mail = try #require(saved.first)
    #expect(mail.state == .suspended && mail.pid == 10 && mail.bandFloor == .audio)
    #expect(mail.savedDigest == "s1" && mail.savedAt == t(2) && mail.savedValidUntil == t(62))
    #expect(mail.awaySince == t(3))
    #expect(mail.killInFlight?.kill == .user(.memoryPressure))

    var successor = JetsamPolicy()
    for app in saved { successor.observe(.adopt(app: app, at: t(8))) }
    #expect(successor.savedApps == saved)
  }

  @Test("the count of continues by others is kept; whether a suspension completed is what the successor sees")
  func suspension() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    policy.observe(.continuedWhileSuspended(app: "a", pid: 10, at: t(2)))
    _ = policy.observe(.tick(at: t(60)))
    var saved = try #require(policy.savedApps.first)
    #expect(saved.continuedByOthers == 1 && saved.suspendIncomplete)
    saved.observedStopped = true
    var successor = JetsamPolicy()
    successor.observe(.adopt(app: saved, at: t(61)))
    let adopted = try #require(successor.app(named: "a"))
    #expect(adopted.state == .suspended && adopted.continuedByOthers == 1 && !adopted.suspendIncomplete)
  }

  @Test("an app with no process is not saved")
  func notRunning() throws {
    var policy = JetsamPolicy()
    try policy.start("a", pid: 10, at: t(1))
    policy.exits("a", .exited(code: 0), at: t(2))
    #expect(policy.savedApps.isEmpty)
  }
}
