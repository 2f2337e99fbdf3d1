import JetsamCore
import Testing

@Suite struct KillLoopTests {
  @Test func twentySuspendedAppsDieLongestSuspendedFirstUntilTheLevelClears() throws {
    var policy = JetsamPolicy()
    // Launched in name order but suspended in a scrambled, known order, one second apart.
    let names = (0..<20).map { "app\($0 < 10 ? "0" : "")\($0)" }
    let suspensionOrder = (0..<20).map { names[($0 * 7) % 20] }
    for (index, name) in names.enumerated() { try policy.start(name, pid: Int32(100 + index), at: t(1)) }
    for (index, name) in suspensionOrder.enumerated() {
      _ = try policy.handle(.suspend(app: name, at: t(10 + Int64(index))))
      // The stop lands half a second after the request.
      policy.observe(.suspendCompleted(app: name, at: t(10 + Int64(index), ms: 500)))
    }

    // Memory stays low for twelve kills (a victim's memory coming back still leaves it below urgent's clear).
    var victims: [String] = []
    var clock: Int64 = 100
    for round in 0..<12 {
      let available: Int64 = round == 0 ? Available.urgent : 250
      let actions = policy.sample(available, at: t(clock))
      #expect(policy.level == .urgent)
      let kills = actions.jetsamKills
      try #require(kills.count == 1, "round \(round): \(actions)")
      victims.append(kills[0].app)
      // The victim is gone: nobody else dies until the next sample.
      let exit = policy.exits(kills[0].app, sigkill, at: t(clock + 1))
      #expect(exit.killed.isEmpty)
      #expect(exit.records.map(\.cause.reason) == [.memoryPressure])
      clock += 2
    }
    #expect(victims == Array(suspensionOrder.prefix(12)))

    // Memory recovers past urgent's clear threshold: the loop stops.
    let cleared = policy.sample(310, at: t(clock))
    #expect(policy.level == .warning)
    #expect(cleared.killed.isEmpty)
    #expect(cleared.contains(.levelChanged(from: .urgent, to: .warning, available: 310)))
    #expect(
      policy.apps.filter { $0.state == .suspended }.map(\.name).sorted() == suspensionOrder.dropFirst(12).sorted())
  }

  @Test func onlyOneVictimAtATimeAndAFreshSampleBeforeTheNext() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["a"])
    // a has not exited yet: more samples do not pile on.
    #expect(policy.sample(Available.critical, at: t(10, ms: 100)).killed == [])
    // a exits: its memory is not in the last sample, so wait.
    #expect(policy.exits("a", sigkill, at: t(10, ms: 200)).killed == [])
    #expect(policy.observe(.tick(at: t(10, ms: 300))).killed == [])
    #expect(policy.sample(Available.urgent, at: t(10, ms: 400)).killed == ["b"])
  }

  @Test func whileALevelIsForcedTheExitAloneAllowsTheNextKill() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    #expect(try policy.handle(.forceLevel(.urgent, at: t(10))).killed == ["a"])
    #expect(policy.exits("a", sigkill, at: t(11)).killed == ["b"])
    #expect(policy.exits("b", sigkill, at: t(12)).killed == [])
  }

  @Test func afterTheForcedLevelIsClearedExitsWaitForASampleAgain() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    try policy.startSuspended("c", pid: 12, at: t(3))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["a"])
    #expect(try policy.handle(.forceLevel(.urgent, at: t(11))).killed == [])
    #expect(policy.exits("a", sigkill, at: t(12)).killed == ["b"])
    #expect(try policy.handle(.forceLevel(nil, at: t(13))).killed == [])
    #expect(policy.exits("b", sigkill, at: t(14)).killed == [])
    #expect(policy.sample(Available.urgent, at: t(15)).killed == ["c"])
  }

  @Test func aVictimPastItsKillTimeoutNoLongerBlocksTheNext() throws {
    var policy = JetsamPolicy(killTimeout: .seconds(2))
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["a"])
    #expect(policy.nextDeadline == t(12))
    #expect(policy.observe(.tick(at: t(11))).killed == [])
    #expect(policy.observe(.tick(at: t(12))).killed == ["b"])
    #expect(policy.nextDeadline == t(14))
    // a is dying: never chosen again, even with nobody else left.
    policy.exits("b", sigkill, at: t(13))
    #expect(policy.sample(Available.critical, at: t(14)).killed == [])
    // When a finally dies of our SIGKILL it is still a jetsam kill with its snapshot.
    let record = try #require(policy.exits("a", sigkill, at: t(20)).records.first)
    #expect(record.cause.reason == .memoryPressure)
    #expect(record.cause.terminationReason == "JETSAM memory-pressure")
    #expect(record.pressure.snapshot?.map(\.name) == ["a", "b"])
    #expect(policy.nextDeadline == nil)
  }

  @Test func aDyingVictimsExitDoesNotReleaseTheCurrentOne() throws {
    var policy = JetsamPolicy(killTimeout: .seconds(2))
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    try policy.startSuspended("c", pid: 12, at: t(3))
    policy.sample(Available.urgent, at: t(10))
    #expect(policy.observe(.tick(at: t(12))).killed == ["b"])
    // a's late exit is not b's: b is still in flight.
    policy.sample(Available.urgent, at: t(13))
    #expect(policy.exits("a", sigkill, at: t(13)).killed == [])
    #expect(policy.sample(Available.urgent, at: t(13, ms: 500)).killed == [])
  }

  @Test func withNoSuspendedAppsLeftBackgroundAppsGoThenForegroundOnlyAtCritical() throws {
    var policy = JetsamPolicy()
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    try policy.start("bg", pid: 11, at: t(2))
    try policy.startSuspended("susp", pid: 12, at: t(3))
    var victims: [String] = []
    for second in Int64(10)..<14 {
      let kills = policy.sample(Available.urgent, at: t(second)).killed
      victims += kills
      for victim in kills { policy.exits(victim, sigkill, at: t(second, ms: 500)) }
    }
    #expect(victims == ["susp", "bg"])
    #expect(policy.app(named: "fg")?.state == .foregroundActive)
    #expect(policy.sample(Available.critical, at: t(20)).killed == ["fg"])
  }

  @Test("a running background app jetsam picks is suspended first, its tasks warned and ended, then killed")
  func backgroundAppIsSuspendedBeforeItIsKilled() throws {
    var policy = JetsamPolicy()
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    try policy.start("bg", pid: 11, at: t(2))
    policy.observe(
      .appMessage(app: "bg", pid: 11, message: .beginBackgroundTask(requestID: 1, name: "upload"), at: t(3)))
    let actions = policy.sample(Available.urgent, at: t(10))
    let expiry = actions.firstIndex {
      if case .deliver("bg", _, let event) = $0 { event.kind == .backgroundTaskWillExpire } else { false }
    }
    let suspend = actions.firstIndex { $0 == .suspend(app: "bg", pid: 11) }
    let kill = actions.firstIndex { if case .kill("bg", 11, .memoryPressure, _) = $0 { true } else { false } }
    #expect(expiry != nil && suspend != nil && kill != nil, "\(actions)")
    #expect(expiry! < suspend! && suspend! < kill!, "warned, suspended, then killed")
    #expect(actions.moves.contains(Move("bg", .background, .suspended)))
    let record = try #require(policy.exits("bg", sigkill, at: t(10, ms: 100)).records.first)
    #expect(record.lifecycle.state == .suspended)
    #expect(record.cause.reason == .memoryPressure)
    #expect(record.lifecycle.backgroundSecondsBeforeSuspension == 8)
    #expect(policy.app(named: "fg")?.state == .foregroundActive)
  }

  @Test("a background app on its way out (SIGTERM sent) is killed, not stopped: that would hold up its end")
  func terminatingAppIsNotSuspended() throws {
    var policy = JetsamPolicy()
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    try policy.start("bg", pid: 11, at: t(2))
    _ = try policy.handle(.terminate(app: "bg", at: t(3)))
    let actions = policy.sample(Available.urgent, at: t(4))
    #expect(actions.killed == ["bg"])
    #expect(!actions.contains { $0 == .suspend(app: "bg", pid: 11) })
  }

  @Test("suspendBeforeKill false: a background app is killed while it runs")
  func backgroundAppKilledRunningWhenAsked() throws {
    var config = testConfig()
    config.suspendBeforeKill = false
    var policy = JetsamPolicy(config: config)
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    try policy.start("bg", pid: 11, at: t(2))
    let actions = policy.sample(Available.urgent, at: t(10))
    #expect(actions.killed == ["bg"])
    #expect(!actions.contains { $0 == .suspend(app: "bg", pid: 11) })
    let record = try #require(policy.exits("bg", sigkill, at: t(10, ms: 100)).records.first)
    #expect(record.lifecycle.state == .background && record.lifecycle.backgroundSecondsBeforeSuspension == nil)
  }

  @Test func anAudioAppSurvivesUrgentAndDiesAfterTheForegroundAtCritical() throws {
    var policy = JetsamPolicy()
    try policy.start("music", pid: 10, at: t(1), floor: .audio)
    try policy.start("fg", pid: 11, at: t(2), foreground: true)
    #expect(policy.sample(Available.urgent, at: t(10)).killed == [])
    #expect(policy.sample(Available.critical, at: t(11)).killed == ["fg"])
    policy.exits("fg", sigkill, at: t(12))
    #expect(policy.sample(Available.critical, at: t(13)).killed == ["music"])
  }

  @Test func aMailAppDiesAfterPlainBackgroundApps() throws {
    var policy = JetsamPolicy()
    // mail has been in the background longest, but its band is higher.
    try policy.start("mail", pid: 10, at: t(1), floor: .mail)
    try policy.start("bg1", pid: 11, at: t(2))
    try policy.start("bg2", pid: 12, at: t(3))
    var victims: [String] = []
    for second in Int64(10)..<14 {
      let kills = policy.sample(Available.urgent, at: t(second)).killed
      victims += kills
      for victim in kills { policy.exits(victim, sigkill, at: t(second, ms: 500)) }
    }
    #expect(victims == ["bg1", "bg2", "mail"])
  }

  @Test func appsAlreadyBeingKilledAreNotChosen() throws {
    var policy = JetsamPolicy()
    try policy.startSuspended("a", pid: 10, at: t(1))
    try policy.startSuspended("b", pid: 11, at: t(2))
    _ = try policy.handle(.kill(app: "a", reason: .appWatchdog, at: t(5)))
    #expect(policy.sample(Available.urgent, at: t(10)).killed == ["b"])
  }

  @Test func nobodyToKillMeansNoKill() throws {
    var policy = JetsamPolicy()
    try policy.start("fg", pid: 10, at: t(1), foreground: true)
    #expect(policy.sample(Available.urgent, at: t(10)).killed == [])
    #expect(policy.nextDeadline == nil)
  }
}
