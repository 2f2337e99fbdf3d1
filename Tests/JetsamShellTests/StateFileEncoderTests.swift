import Foundation
import JetsamCore
import JetsamTestTraits
import Testing

@testable import JetsamConfig
@testable import JetsamShell

/// The state file is written by a hand-made encoder (``StateFileEncoder``) and read by `JSONDecoder`: these tests
/// keep the two in step, so a field added to ``AppStatus`` or ``DaemonState`` cannot be silently dropped.
@Suite("State file encoding", .offThePool)
struct StateFileEncoderTests {
  static func adopted(full: Bool, name: String = "app") -> AppStatus {
    var app = AppStatus(
      name: name, state: .suspended, bandFloor: full ? .audio : nil, pid: 4242, launch: 7,
      stateEnteredAt: .init(nanoseconds: 123_456_789_012), bandEnteredAt: .init(nanoseconds: -5),
      spawnedAt: .init(nanoseconds: Int64.max))
    if full {
      app.continuedByOthers = 2
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
      var metrics = LaunchMetrics(afterExit: .memoryPressure)
      metrics.timeToFirstDrawSeconds = 0.321
      metrics.foregroundSeconds = 3.5
      metrics.backgroundSeconds = 1
      metrics.backgroundAudioSeconds = 0.25
      metrics.hangTimes.count(seconds: 0.4)
      metrics.hangTimes.count(seconds: 20)
      metrics.resumeTimes.count(seconds: 0.12)
      var save = SignpostFigures()
      save.totalCount = 3
      save.durations.count(seconds: 0.07)
      save.measuredIntervals = 2
      save.cpuSeconds = 0.015
      save.memoryBytesSum = 2_500_000.5
      save.bytesWritten = 4096
      metrics.signposts = ["save": save, "load \"quoted\"": SignpostFigures()]
      metrics.suspendedMemory.hold(bytes: 123_456_789, for: 2.5)
      metrics.suspendedMemory.hold(bytes: 987_654_321, for: 0.75)
      metrics.bytesWritten = 1 << 40
      app.launchMetrics = metrics
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

  @Test("AppStatus comes out byte for byte as JSONEncoder writes it (sorted keys), every field set or none")
  func adoptedMatchesJSONEncoder() throws {
    let json = JSONEncoder()
    json.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var noProcess = Self.adopted(full: false)
    noProcess.pid = nil
    noProcess.spawnedAt = nil
    for app in [Self.adopted(full: false), Self.adopted(full: true), noProcess] {
      let state = DaemonState(bootID: "boot", apps: [.init(adopted: app, startTime: 99, settings: try Self.settings())])
      let text = String(decoding: try StateFileEncoder().encode(state), as: UTF8.self)
      let expected = String(decoding: try json.encode(app), as: UTF8.self)
      #expect(text.contains("{\"adopted\":\(expected),\"settings\":"), "\(app)\n\(text)\nexpected \(expected)")
    }
  }

  @Test("What only a view or an adopting daemon knows is not saved; defaults are left out")
  func notSaved() throws {
    var app = Self.adopted(full: false)
    app.suspendIncomplete = true
    app.observedStopped = true
    let state = DaemonState(
      bootID: "boot",
      apps: [.init(adopted: app, startTime: 1, settings: AppSettings(launch: LaunchSpec(command: ["x"])))])
    let text = String(decoding: try StateFileEncoder().encode(state), as: UTF8.self)
    for key in ["band", "suspendIncomplete", "observedStopped", "continuedByOthers", "restorationLost"] {
      #expect(!text.contains("\"\(key)\":"), "\(key) in \(text)")
    }
    let decoded = try JSONDecoder().decode(DaemonState.self, from: Data(text.utf8))
    #expect(decoded.apps.first?.adopted.suspendIncomplete == false)
    #expect(decoded.apps.first?.adopted.observedStopped == nil)
  }

  @Test("A state file written before the saved form and the status were one type reads as it was written")
  func previousVersion() throws {
    // As the previous jetsamd wrote it (its AdoptedApp): every key it had, `observedStopped` and a set
    // `restorationLost` among them.
    let text = #"""
      {"apps":[{"adopted":{"awaySince":{"nanoseconds":70},"bandEnteredAt":{"nanoseconds":-5},"bandFloor":"audio",\#
      "launch":7,"name":"mail","observedStopped":false,"pid":4242,"previousDigest":"p1",\#
      "restorationDeadline":{"nanoseconds":20000000000},"restorationLost":true,"restoredDigest":"r3",\#
      "savedAt":{"nanoseconds":77},"savedDigest":"s2","savedValidUntil":{"nanoseconds":10000000077},\#
      "spawnedAt":{"nanoseconds":9223372036854775807},"state":"suspended","stateEnteredAt":{"nanoseconds":12},\#
      "summary":"items=3"},"spec":{"command":["/bin/sleep","100"]},"startTime":99},\#
      {"adopted":{"bandEnteredAt":{"nanoseconds":1},"launch":1,"name":"plain","pid":7,"spawnedAt":{"nanoseconds":1},\#
      "state":"background","stateEnteredAt":{"nanoseconds":1}},"spec":{"command":["x"]},"startTime":5}],\#
      "bootID":"boot","version":1}
      """#
    let state = try JSONDecoder().decode(DaemonState.self, from: Data(text.utf8))
    var mail = AppStatus(
      name: "mail", state: .suspended, bandFloor: .audio, pid: 4242, launch: 7, stateEnteredAt: .init(nanoseconds: 12),
      bandEnteredAt: .init(nanoseconds: -5), spawnedAt: .init(nanoseconds: Int64.max))
    mail.awaySince = .init(nanoseconds: 70)
    mail.previousDigest = "p1"
    mail.savedDigest = "s2"
    mail.restoredDigest = "r3"
    mail.savedAt = .init(nanoseconds: 77)
    mail.savedValidUntil = .init(nanoseconds: 10_000_000_077)
    mail.restorationDeadline = .init(nanoseconds: 20_000_000_000)
    mail.restorationLost = true
    mail.summary = "items=3"
    let plain = AppStatus(
      name: "plain", state: .background, bandFloor: nil, pid: 7, launch: 1, stateEnteredAt: .init(nanoseconds: 1),
      bandEnteredAt: .init(nanoseconds: 1), spawnedAt: .init(nanoseconds: 1))
    #expect(state.apps.map(\.adopted) == [mail, plain])
    // Version 1 kept the app's config as written: the settings are made from it with the running config's defaults.
    #expect(state.version == 1 && state.apps.allSatisfy { $0.settings == nil })
    #expect(state.apps.map { $0.spec?.command } == [["/bin/sleep", "100"], ["x"]])
    let path = FileManager.default.temporaryDirectory.path + "/state-v1-\(getpid()).json"
    defer { unlink(path) }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try DaemonState.read(path: path)?.apps.count == 2, "a version-1 file is read")
    try text.replacingOccurrences(of: #""version":1"#, with: #""version":3"#)
      .write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: StateFileVersionError.self) { try DaemonState.read(path: path) }
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
      state.apps[0].settings?.launch?.command.append("--round=\(round)")
      state.apps[0].adopted.state = .background
      if round == 1 { state.apps.removeLast() }
      // The lab's charging switch is kept while on (and left out while off).
      state.deviceCharging = round == 0 ? true : nil
      // Records not durable yet are kept until they are (and left out when there are none).
      state.pendingRecords =
        round == 0
        ? [
          ExitRecord(
            app: "two/ü", pid: 7, launch: 3,
            cause: ExitCause(reason: .memoryPressure, terminationReason: "JETSAM memory-pressure", signal: 9),
            lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 2, stateSeconds: 1),
            pressure: ExitPressure(level: .critical, availableBytes: 1 << 20))
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
