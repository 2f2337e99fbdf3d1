import Foundation
import JetsamCore
import JetsamProtocol
import JetsamValues
import Testing

/// Batch answers are written by ``ControlResponse/fastJSON()``, everything else by `JSONEncoder`: clients must not
/// be able to tell, so these compare the two byte for byte.
@Suite("Fast JSON of app answers")
struct FastJSONTests {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  static let never = Instant(nanoseconds: 0)

  static func minimal(_ name: String, seconds: Double) -> AppInfo {
    AppInfo(
      status: AppStatus(
        name: name, state: .notRunning, bandFloor: nil, pid: nil, launch: 0, stateEnteredAt: never,
        bandEnteredAt: never, spawnedAt: nil),
      measured: AppMeasurements(stateSeconds: seconds))
  }

  static func full(_ name: String) -> AppInfo {
    var status = AppStatus(
      name: name, state: .suspended, bandFloor: Band(rawValue: 7), pid: 4_194_304, launch: 42,
      stateEnteredAt: never, bandEnteredAt: never, spawnedAt: never)
    status.savedDigest = "sha/1 \"quoted\""
    status.previousDigest = "prev"
    status.restoredDigest = "back\\slash"
    status.resumption = ResumptionJudgement(
      verdict: .stale, savedDigest: "sha/1", resumedDigest: "sha/1", stateAgeSeconds: 11, validForSeconds: 10)
    status.summary = "tab\t nl\n cr\r bs\u{8} ff\u{c} bell\u{7} del\u{7f} é ✓ 🙂"
    status.suspendIncomplete = true
    status.continuedByOthers = 3
    status.speaksProtocol = false
    return AppInfo(
      status: status,
      measured: AppMeasurements(
        memoryBytes: Int64.max, memoryLimitBytes: 268_435_456, stateSeconds: 12.345678901, stopping: true))
  }

  static let seconds: [Double] = [0, 3, 1.5, 0.1, 1e-05, 123_456.789, 1e20, 1e300, -2.5, 86_400.000_001]

  @Test("lists of apps, every field set or none, and awkward numbers: the same bytes as JSONEncoder")
  func apps() throws {
    var response = ControlResponse(ok: true)
    response.apps = Self.seconds.enumerated().map { Self.minimal("app-\($0.offset)", seconds: $0.element) }
    response.apps?.append(Self.full("full/one"))
    let fast = try #require(response.fastJSON())
    #expect(String(decoding: fast, as: UTF8.self) == String(decoding: try Self.encoder.encode(response), as: UTF8.self))
  }

  @Test("one app, and an empty list")
  func single() throws {
    var one = ControlResponse(ok: true)
    one.app = Self.full("x")
    var none = ControlResponse(ok: true)
    none.apps = []
    for response in [one, none] {
      let fast = try #require(response.fastJSON())
      #expect(
        String(decoding: fast, as: UTF8.self) == String(decoding: try Self.encoder.encode(response), as: UTF8.self))
    }
  }

  @Test("other answers, failures and non-finite numbers are left to JSONEncoder")
  func declines() {
    var status = ControlResponse(ok: true)
    status.status = StatusInfo(
      version: "1", uptimeSeconds: 1, cgroupMode: "v2", suspendMode: "signal", deviceCgroup: "/d", appsByState: [:],
      recordsWritten: 0, recordLog: "/l")
    #expect(status.fastJSON() == nil)
    #expect(ControlResponse.failure(ControlError(.badRequest, "no")).fastJSON() == nil)
    var infinite = ControlResponse(ok: true)
    infinite.apps = [Self.minimal("a", seconds: .infinity)]
    #expect(infinite.fastJSON() == nil)
    #expect(ControlResponse(ok: true).fastJSON() == nil)
  }
}
