import JetsamCore
import JetsamValues
import Testing

/// A running app as victim selection sees it.
func status(
  _ name: String, _ state: LifecycleState, floor: Band? = nil, bandSince: Instant = t(0), spawned: Instant = t(0),
  pid: Int32? = 1
) -> AppStatus {
  AppStatus(
    name: name, state: state, bandFloor: floor, pid: pid, launch: 1, stateEnteredAt: bandSince,
    bandEnteredAt: bandSince, spawnedAt: pid == nil ? nil : spawned)
}

@Suite struct VictimSelectionTests {
  static let mixed = [
    status("fg", .foregroundActive, bandSince: t(1)),
    status("music", .background, floor: .audio, bandSince: t(2)),
    status("mail", .background, floor: .mail, bandSince: t(3)),
    status("bg", .background, bandSince: t(4)),
    status("susp-late", .suspended, bandSince: t(6)),
    status("susp-early", .suspended, bandSince: t(5)),
  ]

  @Test("Nobody dies below urgent", arguments: [PressureLevel.normal, .warning])
  func nobodyBelowUrgent(level: PressureLevel) {
    #expect(VictimSelection.victim(among: Self.mixed, level: level) == nil)
  }

  @Test func killOrderIsBandThenTimeInBand() {
    #expect(
      VictimSelection.killOrder(Self.mixed).map(\.name) == ["susp-early", "susp-late", "bg", "mail", "fg", "music"])
  }

  @Test func urgentSparesTheForegroundBandAndAbove() {
    var apps = Self.mixed
    var victims: [String] = []
    while let victim = VictimSelection.victim(among: apps, level: .urgent) {
      victims.append(victim.name)
      apps.removeAll { $0.name == victim.name }
    }
    #expect(victims == ["susp-early", "susp-late", "bg", "mail"])
    #expect(apps.map(\.name).sorted() == ["fg", "music"])
  }

  @Test func criticalReachesEveryBandWithAudioAfterForeground() {
    var apps = Self.mixed
    var victims: [String] = []
    while let victim = VictimSelection.victim(among: apps, level: .critical) {
      victims.append(victim.name)
      apps.removeAll { $0.name == victim.name }
    }
    #expect(victims == ["susp-early", "susp-late", "bg", "mail", "fg", "music"])
  }

  @Test func aSameBandTieGoesToTheOlderProcessThenTheName() {
    let apps = [
      status("c", .suspended, bandSince: t(5), spawned: t(2)),
      status("b", .suspended, bandSince: t(5), spawned: t(1)),
      status("a", .suspended, bandSince: t(5), spawned: t(2)),
      status("z", .suspended, bandSince: t(4), spawned: t(3)),
    ]
    #expect(VictimSelection.killOrder(apps).map(\.name) == ["z", "b", "a", "c"])
    #expect(VictimSelection.victim(among: apps, level: .urgent)?.name == "z")
  }

  @Test func onlyRunningAppsWithAPidAreCandidates() {
    let apps = [
      status("gone", .terminated, pid: nil),
      status("never", .notRunning, pid: nil),
      status("starting", .launching, pid: nil),
    ]
    #expect(VictimSelection.victim(among: apps, level: .critical) == nil)
  }

  @Test(
    "Which bands may die at each level",
    arguments: [
      (PressureLevel.warning, Band.idle, false), (.urgent, .idle, true), (.urgent, .mail, true),
      (.urgent, .foreground, false), (.urgent, .audio, false), (.critical, .foreground, true),
      (.critical, .critical, true),
    ])
  func mayKill(level: PressureLevel, band: Band, allowed: Bool) {
    #expect(VictimSelection.mayKill(band: band, at: level) == allowed)
  }
}
