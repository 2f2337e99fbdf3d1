import Foundation
import JetsamCore
import Testing

@testable import JetsamConfig
@testable import JetsamShell

/// The state file is written by a hand-made encoder (``StateFileEncoder``) and read by `JSONDecoder`: these tests
/// keep the two in step, so a field added to ``AdoptedApp`` or ``DaemonState`` cannot be silently dropped.
@Suite("State file encoding")
struct StateFileEncoderTests {
  static func adopted(full: Bool, name: String = "app") -> AdoptedApp {
    var app = AdoptedApp(
      name: name, pid: 4242, launch: 7, state: .suspended, bandFloor: full ? .audio : nil,
      stateEnteredAt: .init(nanoseconds: 123_456_789_012), bandEnteredAt: .init(nanoseconds: -5),
      spawnedAt: .init(nanoseconds: Int64.max))
    if full {
      app.observedStopped = false
      app.summary = "items=3 \"quoted\" \\ tab\t nl\n bell\u{7} é ✓"
      app.previousDigest = "p1"
      app.savedDigest = "s2"
      app.restoredDigest = "r3"
      app.savedAt = .init(nanoseconds: 77)
      app.savedValidUntil = .init(nanoseconds: 10_000_000_077)
      app.awaySince = .init(nanoseconds: 70)
      app.restorationDeadline = .init(nanoseconds: 20_000_000_000)
      app.restorationLost = true
      app.resumption = ResumptionJudgement(
        verdict: .stale, savedDigest: "s2", resumedDigest: "s2", stateAgeSeconds: 11.25, validForSeconds: 10)
      app.killInFlight = KillInFlight(
        kill: .backgroundTaskTimeout(["up/load", "sync"]), level: .critical, availableBytes: 12345)
    }
    return app
  }

  static func settings() throws -> AppSettings {
    let text = """
      {"command": ["/bin/sleep", "100"], "env": {"A": "1", "B": "two words"}, "band": 3,
       "memoryLimit": "64M", "cpuLimit": 50.5, "pidsLimit": 12, "acknowledgements": "always",
       "hooks": {"didEnterBackground": {"signal": "SIGUSR1"},
                 "willTerminate": {"command": ["/bin/true"], "timeout": "2s"}}}
      """
    return try JSONDecoder().decode(AppConfig.self, from: Data(text.utf8)).settings(
      defaults: AppCaps(), defaultUser: "nobody")
  }

  @Test("AdoptedApp comes out byte for byte as JSONEncoder writes it (sorted keys), every field set or none")
  func adoptedMatchesJSONEncoder() throws {
    let json = JSONEncoder()
    json.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for full in [false, true] {
      let app = Self.adopted(full: full)
      let state = DaemonState(bootID: "boot", apps: [.init(adopted: app, startTime: 99, settings: try Self.settings())])
      let text = String(decoding: try StateFileEncoder().encode(state), as: UTF8.self)
      let expected = String(decoding: try json.encode(app), as: UTF8.self)
      #expect(text.contains("{\"adopted\":\(expected),\"settings\":"), "full: \(full)\n\(text)\nexpected \(expected)")
    }
  }

  @Test("JSONDecoder reads back exactly what was encoded, across saves that reuse cached settings")
  func roundTrip() throws {
    let encoder = StateFileEncoder()
    var state = DaemonState(
      bootID: "b\"oot",
      apps: [
        .init(adopted: Self.adopted(full: true, name: "one"), startTime: 1, settings: try Self.settings()),
        .init(
          adopted: Self.adopted(full: false, name: "two/ü"), startTime: UInt64.max,
          settings: AppSettings(launch: LaunchSpec(command: ["x"]))),
      ])
    for round in 0..<3 {
      let decoded = try JSONDecoder().decode(DaemonState.self, from: Data(try encoder.encode(state)))
      #expect(decoded.bootID == state.bootID)
      #expect(decoded.version == DaemonState.currentVersion)
      #expect(decoded.apps == state.apps, "round \(round)")
      #expect(decoded.deviceCharging == state.deviceCharging, "round \(round)")
      #expect(decoded.pendingRecords == state.pendingRecords, "round \(round)")
      // The next save changes the settings, drops an app and changes a state: the cache must not serve stale text.
      state.apps[0].settings.launch?.command.append("--round=\(round)")
      state.apps[0].adopted.state = .background
      if round == 1 { state.apps.removeLast() }
      // The lab's charging switch is kept while on (and left out while off).
      state.deviceCharging = round == 0 ? true : nil
      // Records not durable yet are kept until they are (and left out when there are none).
      state.pendingRecords =
        round == 0
        ? [
          ExitRecord(
            app: "two/ü", pid: 7, launch: 3, reason: .memoryPressure, terminationReason: "JETSAM memory-pressure",
            state: "suspended", signal: 9, exitCode: nil, aliveSeconds: 2, stateSeconds: 1, pressureLevel: .critical,
            deviceAvailableBytes: 1 << 20)
        ] : nil
    }
  }

  @Test("No apps is an empty list")
  func empty() throws {
    let decoded = try JSONDecoder().decode(
      DaemonState.self, from: Data(try StateFileEncoder().encode(DaemonState(bootID: "", apps: []))))
    #expect(decoded.apps.isEmpty)
  }
}
