import Foundation
import Testing

@testable import JetsamClient

@Suite struct LaunchEnvironmentTests {
  @Test func readsAFreshLaunch() throws {
    let launch = try LaunchEnvironment([
      "JETSAM_FD": "3", "JETSAM_PROTOCOL": "1", "JETSAM_APP": "notes", "JETSAM_LAUNCH": "1",
      "JETSAM_LAUNCH_REASON": "fresh",
    ])
    #expect(launch.descriptor == 3)
    #expect(launch.protocolVersion == 1)
    #expect(launch.appName == "notes")
    #expect(launch.launchNumber == 1)
    #expect(launch.launchReason == .fresh)
    #expect(launch.stateSummary == nil)
  }

  @Test func readsALaunchAfterAnExitWithItsSummary() throws {
    let launch = try LaunchEnvironment([
      "JETSAM_FD": "7", "JETSAM_LAUNCH": "2", "JETSAM_LAUNCH_REASON": "afterExit",
      "JETSAM_PREVIOUS_EXIT": "reason=memoryPressure state=suspended time=2026-11-29T14:35:35.447Z",
      "JETSAM_STATE_SUMMARY": "page%3D3%20of%2010",
    ])
    #expect(launch.launchNumber == 2)
    #expect(launch.stateSummary == "page=3 of 10")
    guard case .afterExit(let reason, let state, let time) = launch.launchReason else {
      Issue.record("expected afterExit, got \(launch.launchReason)")
      return
    }
    #expect(reason == "memoryPressure")
    #expect(state == "suspended")
    let expected = Date(timeIntervalSince1970: 1_795_962_935.447)
    #expect(abs((time ?? .distantPast).timeIntervalSince(expected)) < 0.001)
  }

  @Test func aSummaryThatIsNotValidEncodingIsKeptAsItIs() throws {
    let launch = try LaunchEnvironment(["JETSAM_FD": "3", "JETSAM_STATE_SUMMARY": "100%"])
    #expect(launch.stateSummary == "100%")
  }

  @Test func readsATimeWithoutFractionalSeconds() {
    #expect(LaunchReason.parseTime("2026-11-29T14:35:35Z") == Date(timeIntervalSince1970: 1_795_962_935))
    #expect(LaunchReason.parseTime("yesterday") == nil)
  }

  @Test func withoutJetsamFDTheProgramWasNotLaunchedByJetsam() {
    #expect(throws: JetsamClientError.notLaunchedByJetsam) { try LaunchEnvironment(["JETSAM_APP": "x"]) }
    #expect(JetsamClientError.notLaunchedByJetsam.description.contains("not launched by jetsamd"))
  }

  @Test(arguments: ["", "three", "-1", "3.5"])
  func aJetsamFDThatIsNotANumberIsRejected(value: String) {
    #expect(throws: JetsamClientError.invalidDescriptor("\"\(value)\" is not a descriptor number")) {
      try LaunchEnvironment(["JETSAM_FD": value])
    }
  }
}
