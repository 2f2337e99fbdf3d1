import JetsamCore
import Testing

@Suite struct ForegroundSlotTests {
  @Test func aForegroundLaunchMovesTheForegroundAppToTheBackgroundFirst() throws {
    var policy = JetsamPolicy(slots: 1)
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    _ = try policy.handle(.configure(app: "b", bandFloor: nil, launchCount: 0))
    _ = try policy.handle(.launch(app: "b", foreground: true, at: t(2)))
    // Room is made only once b really runs.
    #expect(policy.app(named: "a")?.state == .foregroundActive)
    let spawned = policy.observe(.spawned(app: "b", pid: 11, at: t(3)))
    #expect(
      spawned.moves == [
        Move("a", .foregroundActive, .foregroundInactive), Move("a", .foregroundInactive, .background),
        Move("b", .launching, .foregroundActive),
      ])
  }

  @Test func activatingABackgroundAppSwapsItWithTheForegroundApp() throws {
    var policy = JetsamPolicy(slots: 1)
    try policy.start("a", pid: 10, at: t(1))
    try policy.start("b", pid: 11, at: t(2), foreground: true)
    let actions = try policy.handle(.activate(app: "a", at: t(3)))
    #expect(
      actions.moves == [
        Move("b", .foregroundActive, .foregroundInactive), Move("b", .foregroundInactive, .background),
        Move("a", .background, .foregroundInactive), Move("a", .foregroundInactive, .foregroundActive),
      ])
  }

  @Test func withTwoSlotsTheEarliestArrivalLeaves() throws {
    var policy = JetsamPolicy(slots: 2)
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    try policy.start("b", pid: 11, at: t(2), foreground: true)
    #expect(policy.apps.map(\.state) == [.foregroundActive, .foregroundActive])
    try policy.start("c", pid: 12, at: t(3), foreground: true)
    #expect(policy.apps.map(\.state) == [.background, .foregroundActive, .foregroundActive])
    // a comes back: b has now been in the foreground longest.
    let actions = try policy.handle(.activate(app: "a", at: t(4)))
    #expect(actions.moves.first == Move("b", .foregroundActive, .foregroundInactive))
    #expect(policy.apps.map(\.state) == [.foregroundActive, .background, .foregroundActive])
  }

  @Test func activatingTheActiveAppDoesNothing() throws {
    var policy = JetsamPolicy(slots: 1)
    try policy.start("a", pid: 10, at: t(1), foreground: true)
    let before = policy.apps
    #expect(try policy.handle(.activate(app: "a", at: t(2))) == [])
    #expect(policy.apps == before)
  }
}
