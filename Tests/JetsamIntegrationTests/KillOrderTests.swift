import Foundation
import Glibc
import JetsamCore
import JetsamDaemonProcess
import JetsamPlatform
import JetsamProtocol
import JetsamTestKit
import JetsamTestTraits
import Testing

/// Jetsam under real memory pressure: 20 suspended apps holding real memory, a foreground app that grows,
/// and the exit records as the judge.
@Suite(
  "Jetsam kill order", .serialized, .enabled(if: isRoot, "needs root: jetsamd creates cgroups"),
  .timeLimit(.minutes(3)), .offThePool)
struct KillOrderTests {
  /// A 1 GiB device whose urgent level starts at 500M available and clears at 560M.
  static let config = """
    {
      device: { ram: "1G", thresholds: {
        warning: { enter: "600M", clear: "650M" },
        urgent: { enter: "500M", clear: "560M" },
        critical: { enter: "100M", clear: "150M" } } },
      suspend: { backgroundGrace: null },
    }
    """

  /// Launches `count` apps holding `megabytes` each, then suspends them in a shuffled order (not the launch
  /// order), each showing state T before the next; returns names in suspension order and their pids.
  static func suspendedApps(_ daemon: DaemonHarness, count: Int, megabytes: Int) throws -> ([String], [String: Int32]) {
    var pids: [String: Int32] = [:]
    for index in 0..<count {
      let name = String(format: "app%02d", index)
      pids[name] = try daemon.launch(name, ["alloc", String(megabytes), "--hold"])
    }
    // Wait until each holds its memory, so later pressure comes only from the foreground app.
    try daemon.waitUntil("every app to hold its memory") {
      try daemon.apps().values.allSatisfy { $0.measured.memoryBytes >= Int64(megabytes) << 20 }
    }
    var generator = SeededGenerator(seed: 42)
    let order = pids.keys.sorted().shuffled(using: &generator)
    for name in order {
      let result = try daemon.ctl(["suspend", name])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(processState(pid: pids[name]!) == "T", "\(name) not stopped")
      usleep(5_000)  // distinct suspension times
    }
    return (order, pids)
  }

  @Test("suspended apps die longest-suspended-first with memoryPressure, until pressure clears")
  func longestSuspendedFirst() throws {
    let daemon = try DaemonHarness(config: Self.config)
    defer { daemon.stop() }
    let (order, pids) = try Self.suspendedApps(daemon, count: 20, megabytes: 16)
    #expect(try daemon.ctlJSON(PressureInfo.self, ["pressure"]).level == .normal)

    // Real memory pressure: a foreground app grows by 250M at 250 MB/s.
    let camera = try daemon.launch("camera", ["alloc", "250", "--rate", "250", "--hold"])
    try daemon.waitUntil("the camera to hold its memory") {
      (try daemon.apps()["camera"]?.measured.memoryBytes ?? 0) >= 250 << 20
    }
    try daemon.waitUntil("pressure to clear below urgent") {
      try daemon.ctlJSON(PressureInfo.self, ["pressure"]).level < .urgent
    }
    // Every kill that went out has its record (made durable on the writer thread, after the memory came back): each
    // app in the suspension order is either recorded or still stopped.
    try daemon.waitUntil("every killed app's record") {
      let recorded = Set(try daemon.recordsOnDisk().map(\.app))
      return order.allSatisfy { recorded.contains($0) || processState(pid: pids[$0]!) == "T" }
    }

    let records = try daemon.recordsOnDisk()
    let killed = records.map(\.app)
    #expect(killed.count >= 2 && killed.count < 20, "killed \(killed)")
    #expect(killed == Array(order.prefix(killed.count)), "kill order \(killed) is not the suspension order \(order)")
    for record in records {
      #expect(record.cause.reason == .memoryPressure)
      #expect(record.cause.terminationReason == "JETSAM memory-pressure")
      #expect(record.lifecycle.state == .suspended)
      #expect(record.cause.signal == 9)
      #expect(record.pid == pids[record.app])
      #expect(record.usage.memoryBytes >= 16 << 20)
      let snapshot = try #require(record.pressure.snapshot)
      #expect(snapshot.first?.name == record.app, "the victim heads its own snapshot")
      #expect(snapshot.contains { $0.name == "camera" && $0.state == .foreground })
      #expect(!isAlive(record.pid))
    }
    // Everyone else is untouched: still stopped, still alive.
    for name in order.dropFirst(killed.count) {
      #expect(processState(pid: pids[name]!) == "T", "\(name) should still be suspended")
    }
    #expect(isAlive(camera))
    #expect(try daemon.apps()["camera"]?.status.state.coarse == .foreground)
  }

  /// Sizes (MiB) for ``escalation()``, chosen so that its outcome cannot depend on timing (how far the camera has
  /// grown when each victim's memory is back). The urgent level of ``config`` starts at 524M charged to the 1G
  /// device (500M available) and clears at 464M charged (560M available); each app is charged its allocation plus
  /// 1–4M (page tables, malloc headers, stack, libc data):
  /// - urgent starts, at the latest, when the camera and `late` are full (400 + 160 = 560 ≥ 524), so it starts;
  /// - once it has started, `maps` and `early` free at most 16 + 16 + 8 = 40M, so what is left, `late` included,
  ///   stays above 524 − 40 = 484 > 464 whatever the camera's size: urgent holds until `late` is gone;
  /// - the camera alone, full, is far below the clear (400 + 4 ≤ 464): once `late` is gone the level clears and
  ///   stays clear, and nobody else dies;
  /// - all together (592 + 16) stay far from critical (924M charged): the foreground app is never at risk.
  /// (The test once had a 480M camera beside two 40M background apps: 480 + 3 > 464 kept the level urgent forever,
  /// nobody being left that urgent may kill, unless both kills had finished within the camera's next ~20M of
  /// growth, ~50 ms at 400 MB/s: too short under emulation or on a loaded machine.)
  enum EscalationMiB {
    static let suspended = 16
    static let early = 16
    static let late = 160
    static let camera = 400
  }

  @Test(
    "suspended apps die first, then background apps oldest-first (moved to Suspended first, unless configured not to); the foreground app is never touched",
    arguments: [true, false])
  func escalation(suspendingFirst: Bool) throws {
    let config = Self.config.replacingOccurrences(
      of: "backgroundGrace: null", with: "backgroundGrace: null, beforeJetsamKill: \(suspendingFirst)")
    let daemon = try DaemonHarness(config: config)
    defer { daemon.stop() }
    // Launched in this order, each pushes the one before into the background; `maps` is then suspended.
    let maps = try daemon.launch("maps", ["alloc", String(EscalationMiB.suspended), "--hold"])
    let early = try daemon.launch("early", ["alloc", String(EscalationMiB.early), "--hold"])
    let late = try daemon.launch("late", ["alloc", String(EscalationMiB.late), "--hold"])
    let held = ["maps": EscalationMiB.suspended, "early": EscalationMiB.early, "late": EscalationMiB.late]
    try daemon.waitUntil("the three apps to hold their memory") {
      let apps = try daemon.apps()
      return held.allSatisfy { name, megabytes in (apps[name]?.measured.memoryBytes ?? 0) >= Int64(megabytes) << 20 }
    }
    let suspend = try daemon.ctl(["suspend", "maps"])
    #expect(suspend.status == 0, "\(suspend.stderr)")
    #expect(processState(pid: maps) == "T", "maps not stopped")
    #expect(try daemon.ctlJSON(PressureInfo.self, ["pressure"]).level == .normal)

    // Real memory pressure: the foreground app grows while jetsam kills.
    let camera = try daemon.launch("camera", ["alloc", String(EscalationMiB.camera), "--rate", "400", "--hold"])
    try daemon.waitUntil("the camera to hold its memory and pressure to clear below urgent") {
      let grown = (try daemon.apps()["camera"]?.measured.memoryBytes ?? 0) >= Int64(EscalationMiB.camera) << 20
      return try grown && daemon.ctlJSON(PressureInfo.self, ["pressure"]).level < .urgent
    }
    let records = try daemon.waitForRecords(3)
    #expect(records.map(\.app) == ["maps", "early", "late"], "\(records.map(\.app))")
    // iOS's escalation: a background app is moved to Suspended, then killed as one, saying how long it ran.
    let dying: CoarseState = suspendingFirst ? .suspended : .background
    #expect(records.map(\.lifecycle.state) == [.suspended, dying, dying], "\(records.map(\.lifecycle.state))")
    #expect(records[0].lifecycle.backgroundSecondsBeforeSuspension == nil, "maps was suspended on request")
    #expect(records[1...].allSatisfy { ($0.lifecycle.backgroundSecondsBeforeSuspension != nil) == suspendingFirst })
    #expect(
      records.allSatisfy {
        $0.cause.reason == .memoryPressure && $0.cause.terminationReason == "JETSAM memory-pressure"
      })
    #expect(!isAlive(maps) && !isAlive(early) && !isAlive(late))
    #expect(isAlive(camera), "the foreground app dies only at critical")
    #expect(try daemon.apps()["camera"]?.status.state.coarse == .foreground)
  }
}

/// A tiny deterministic generator, so the shuffled suspension order is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }
}
