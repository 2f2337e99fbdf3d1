import JetsamCore
import JetsamValues
import Testing

/// The ordered victim index against the full sort it replaces: the same order, at a cost that grows with the
/// logarithm of the population rather than with the population.
@Suite struct VictimIndexTests {
  static let states: [LifecycleState] = [
    .notRunning, .launching, .foregroundActive, .foregroundInactive, .background, .suspended, .terminated,
  ]
  static let floors: [Band?] = [nil, nil, nil, .mail, .audio, .critical]

  /// A random app; times come from a narrow range so that ties in band time and spawn time are common.
  static func randomApp(_ index: Int, _ random: inout SplitMix64) -> AppStatus {
    let state = states.randomElement(using: &random)!
    let hasProcess = state.isRunning && Int.random(in: 0..<10, using: &random) > 0
    return status(
      "app\(Int.random(in: 0..<1000, using: &random))-\(index)", state, floor: floors.randomElement(using: &random)!,
      bandSince: t(Int64.random(in: 0..<5, using: &random)), spawned: t(Int64.random(in: 0..<3, using: &random)),
      pid: hasProcess ? Int32(index + 1) : nil)
  }

  @Test("The index keeps the full sort's order through inserts and removals", arguments: 1...20)
  func indexOrderIsTheFullSort(seed: UInt64) {
    var random = SplitMix64(state: seed)
    var present: [String: AppStatus] = [:]
    var index = SortedKeySet<VictimKey>()
    for step in 0..<2000 {
      // Mostly changes (an app leaves its old place and takes a new one), some arrivals, some departures.
      if let name = present.keys.sorted().randomElement(using: &random), Bool.random(using: &random) {
        let removed = index.remove(VictimKey(present[name]!))
        #expect(removed)
        present[name] = nil
        if Bool.random(using: &random) {
          var moved = Self.randomApp(step, &random)
          moved.name = name
          present[name] = moved
          let inserted = index.insert(VictimKey(moved))
          #expect(inserted)
        }
      } else {
        let app = Self.randomApp(step, &random)
        present[app.name] = app
        let inserted = index.insert(VictimKey(app))
        #expect(inserted)
      }
    }
    #expect(index.count == present.count)
    #expect(index.elements.map(\.name) == VictimSelection.killOrder(Array(present.values)).map(\.name))
  }

  @Test("The policy kills in the full sort's order and snapshots it", arguments: 1...5)
  func policyKillsInTheFullSortsOrder(seed: UInt64) throws {
    var random = SplitMix64(state: seed)
    var policy = JetsamPolicy(slots: 2)
    for number in 0..<300 {
      let name = "app\(Int.random(in: 0..<100, using: &random))-\(number)"
      let at = t(Int64.random(in: 0..<20, using: &random))
      let floor = Self.floors.randomElement(using: &random)!
      switch Int.random(in: 0..<4, using: &random) {
      case 0: try policy.startSuspended(name, pid: Int32(number + 1), at: at, floor: floor)
      case 1: try policy.start(name, pid: Int32(number + 1), at: at, foreground: true, floor: floor)
      case 2: try policy.start(name, pid: Int32(number + 1), at: at, floor: floor)
      default: _ = try policy.handle(.configure(app: name, bandFloor: floor, launchCount: 0))
      }
    }
    let running = policy.apps.filter { $0.state.isRunning && $0.pid != nil }
    let expected = VictimSelection.killOrder(running).map(\.name)
    var actions = policy.observe(.forceLevel(.critical, at: t(30)))
    if case .kill(_, _, _, let decision) = actions.first(where: { !$0.killedNames.isEmpty }) {
      #expect(decision.snapshot?.map(\.name) == expected)
    } else {
      Issue.record("no kill at critical")
    }
    var killed: [String] = []
    var second: Int64 = 31
    while let victim = actions.killed.first {
      killed.append(victim)
      actions = policy.exits(victim, sigkill, at: t(second)) + policy.observe(.tick(at: t(second)))
      second += 1
    }
    #expect(killed == expected)
  }

  /// Suspended apps killed one at a time at critical: the comparisons the index makes per kill (choosing the
  /// victim, filing it as being killed, dropping it at its exit).
  static func comparisonsPerKill(apps: Int, kills: Int) throws -> Double {
    var policy = JetsamPolicy()
    for number in 0..<apps {
      try policy.startSuspended("app\(number)", pid: Int32(number + 1), at: .milliseconds(Int64(number)))
    }
    let before = policy.victimIndexComparisons
    var actions = policy.observe(.forceLevel(.critical, at: t(1_000)))
    var killed = 0
    while let victim = actions.killed.first, killed < kills {
      killed += 1
      actions = policy.exits(victim, sigkill, at: t(1_000 + Int64(killed)))
    }
    #expect(killed == kills)
    return Double(policy.victimIndexComparisons - before) / Double(kills)
  }

  @Test func victimChoiceWorkGrowsWithTheLogarithmOfTheApps() throws {
    let small = try Self.comparisonsPerKill(apps: 1_000, kills: 20)
    let large = try Self.comparisonsPerKill(apps: 100_000, kills: 20)
    // A scan would make 100 times the work for 100 times the apps; a binary search makes log(100,000)/log(1,000),
    // about 1.7 times.
    #expect(large < small * 3, "\(small) comparisons per kill at 1,000 apps, \(large) at 100,000")
    #expect(large < 200)
  }
}

extension PolicyAction {
  /// The app of a `kill` action, as a one-element list (empty for any other action).
  fileprivate var killedNames: [String] { [self].killed }
}
