import JetsamCore
import Testing

@Suite struct PressureLevelTests {
  /// A walk of samples and the level after each (thresholds: warning 400/500, urgent 200/300, critical 100/150).
  struct Walk: CustomTestStringConvertible {
    var name: String
    var steps: [(available: Int64, level: PressureLevel)]
    var testDescription: String { name }
  }

  static let walks: [Walk] = [
    Walk(
      name: "down one level at a time",
      steps: [(1000, .normal), (400, .warning), (200, .urgent), (100, .critical)]),
    Walk(
      name: "back up, held by each clear threshold",
      steps: [
        (100, .critical), (149, .critical), (150, .urgent), (299, .urgent), (300, .warning), (499, .warning),
        (500, .normal),
      ]),
    Walk(name: "skipping levels down and up", steps: [(1000, .normal), (50, .critical), (1000, .normal)]),
    Walk(name: "from critical straight to warning", steps: [(50, .critical), (350, .warning)]),
    Walk(
      name: "rising inside a band does not lower the level",
      steps: [(150, .urgent), (250, .urgent), (180, .urgent), (290, .urgent), (310, .warning)]),
    Walk(
      name: "no hysteresis upward: entering needs the enter threshold",
      steps: [(1000, .normal), (450, .normal), (401, .normal), (400, .warning), (201, .warning)]),
  ]

  @Test(arguments: walks)
  func levelFollowsSamplesWithHysteresis(walk: Walk) {
    var policy = JetsamPolicy()
    var previous = PressureLevel.normal
    for (index, step) in walk.steps.enumerated() {
      let actions = policy.sample(step.available, at: t(Int64(index)))
      #expect(policy.level == step.level, "after \(step.available) bytes")
      #expect(policy.availableBytes == step.available)
      // Only a change of level is announced, with the sample that caused it.
      let announced: [PolicyAction] =
        previous == step.level ? [] : [.levelChanged(from: previous, to: step.level, available: step.available)]
      #expect(actions.filter { if case .levelChanged = $0 { true } else { false } } == announced)
      previous = step.level
    }
  }

  @Test func noSampleMeansNormalWithNothingAvailable() {
    let policy = JetsamPolicy()
    #expect(policy.level == .normal)
    #expect(policy.availableBytes == nil)
    #expect(policy.forcedLevel == nil)
  }

  @Test func aForcedLevelOverridesSamplesUntilCleared() throws {
    var policy = JetsamPolicy()
    policy.sample(Available.warning, at: t(1))
    let forced = try policy.handle(.forceLevel(.critical, at: t(2)))
    #expect(forced == [.levelChanged(from: .warning, to: .critical, available: Available.warning)])
    #expect(policy.level == .critical)
    #expect(policy.forcedLevel == .critical)
    // Samples keep measuring underneath but announce nothing while forced.
    #expect(policy.sample(Available.plenty, at: t(3)) == [])
    #expect(policy.level == .critical)
    let cleared = try policy.handle(.forceLevel(nil, at: t(4)))
    #expect(cleared == [.levelChanged(from: .critical, to: .normal, available: Available.plenty)])
    #expect(policy.level == .normal)
  }

  @Test func forcingTheLevelInForceAnnouncesNothing() throws {
    var policy = JetsamPolicy()
    policy.sample(Available.warning, at: t(1))
    #expect(try policy.handle(.forceLevel(.warning, at: t(2))) == [])
    #expect(try policy.handle(.forceLevel(nil, at: t(3))) == [])
  }

  @Test func measuredHysteresisContinuesUnderAForcedLevel() throws {
    var policy = JetsamPolicy()
    _ = try policy.handle(.forceLevel(.warning, at: t(1)))
    policy.sample(Available.urgent, at: t(2))  // measured: urgent
    policy.sample(250, at: t(3))  // still urgent by hysteresis
    let cleared = try policy.handle(.forceLevel(nil, at: t(4)))
    #expect(cleared.first == .levelChanged(from: .warning, to: .urgent, available: 250))
  }

  @Test func reconfiguredThresholdsApplyFromTheNextSample() {
    var policy = JetsamPolicy()
    policy.sample(Available.warning, at: t(1))
    var config = testConfig()
    config.thresholds = .init(
      warning: .init(enter: 4000, clear: 5000), urgent: .init(enter: 2000, clear: 3000),
      critical: .init(enter: 1000, clear: 1500))
    policy.observe(.reconfigure(config))
    #expect(policy.level == .warning)
    policy.sample(Available.warning, at: t(2))
    #expect(policy.level == .critical)
  }

  @Test func memoryWarningsNameEveryLevelAboveNormalAsTheConfigDoes() {
    #expect(PressureLevel.normal.memoryWarningLevel == nil, "normal warns no one")
    for level in PressureLevel.allCases where level > .normal {
      #expect(level.memoryWarningLevel?.rawValue == level.name)
    }
  }
}
