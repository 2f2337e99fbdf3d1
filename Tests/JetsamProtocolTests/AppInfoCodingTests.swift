import Foundation
import JetsamCore
import JetsamProtocol
import JetsamValues
import Testing

/// `ps` and the lifecycle verbs answer with the policy's status and the daemon's measurements, written out as the
/// flat object clients have always read: these compare the text with what the field-by-field view wrote, and read
/// it back as a client does.
@Suite("App JSON of ps")
struct AppInfoCodingTests {
  static func encoded(_ info: AppInfo) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(info), as: UTF8.self)
  }

  static let never = Instant(nanoseconds: 0)

  /// A suspended app with every fact `ps` shows.
  static let suspended: AppInfo = {
    var status = AppStatus(
      name: "mail/one", state: .suspended, bandFloor: .audio, pid: 4242, launch: 3, stateEnteredAt: never,
      bandEnteredAt: never, spawnedAt: never)
    status.previousDigest = "d1"
    status.restoredDigest = "d1"
    status.savedDigest = #"d2 "q""#
    status.resumption = ResumptionJudgement(
      verdict: .stale, savedDigest: #"d2 "q""#, resumedDigest: "d2", stateAgeSeconds: 12, validForSeconds: 10)
    status.continuedByOthers = 2
    status.speaksProtocol = true
    status.summary = "items=3 \\ tab\t"
    status.suspendIncomplete = true
    return AppInfo(
      status: status,
      measured: AppMeasurements(memoryBytes: 1 << 20, memoryLimitBytes: 64 << 20, stateSeconds: 2.5, stopping: true))
  }()

  @Test("a running app's keys are those the copied view wrote, and a client reads them back to the same text")
  func running() throws {
    let text = #"""
      {"band":"audio","continuedWhileSuspended":2,"launch":3,"lifecycleState":"suspended","memoryBytes":1048576,\#
      "memoryLimitBytes":67108864,"name":"mail/one","pid":4242,"previousDigest":"d1","restoration":"match",\#
      "restoredDigest":"d1","resumedDigest":"d2","resumption":"stale","savedDigest":"d2 \"q\"",\#
      "speaksProtocol":true,"state":"suspended","stateSeconds":2.5,"stateSummary":"items=3 \\ tab\t",\#
      "stopping":true,"suspendIncomplete":true}
      """#
    #expect(try Self.encoded(Self.suspended) == text)
    let read = try JSONDecoder().decode(AppInfo.self, from: Data(text.utf8))
    #expect(try Self.encoded(read) == text)
    #expect(read.status.state == .suspended && read.status.band == .audio && read.status.restoration == .match)
    #expect(read.status.resumption?.verdict == .stale && read.measured == Self.suspended.measured)
  }

  @Test("an app that is not running shows no pid, digest, verdict or flag, whatever its status holds")
  func notRunning() throws {
    var status = Self.suspended.status
    status.state = .terminated
    let info = AppInfo(status: status, measured: AppMeasurements(stateSeconds: 1.5))
    let text = #"""
      {"band":"idle","launch":3,"lifecycleState":"terminated","memoryBytes":0,"name":"mail/one",\#
      "state":"notRunning","stateSeconds":1.5,"stateSummary":"items=3 \\ tab\t"}
      """#
    #expect(try Self.encoded(info) == text)
    let read = try JSONDecoder().decode(AppInfo.self, from: Data(text.utf8))
    #expect(try Self.encoded(read) == text)
    #expect(read.status.pid == nil && read.status.restoration == nil && read.status.band == .idle)
  }

  @Test("a lifted band reads back as the band it is; the state's own band needs no lift")
  func bands() throws {
    for (state, floor) in [(LifecycleState.background, Band.mail), (.foregroundActive, nil), (.background, nil)] {
      let info = AppInfo(
        status: AppStatus(
          name: "a", state: state, bandFloor: floor, pid: 1, launch: 1, stateEnteredAt: Self.never,
          bandEnteredAt: Self.never, spawnedAt: Self.never),
        measured: AppMeasurements())
      let read = try JSONDecoder().decode(AppInfo.self, from: Data(try Self.encoded(info).utf8))
      #expect(read.status.band == info.status.band && read.status.bandFloor == floor)
    }
  }
}
