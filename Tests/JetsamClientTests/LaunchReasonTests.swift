import Foundation
import Synchronization
import Testing

@testable import JetsamClient

@Suite(.timeLimit(.minutes(1))) struct LaunchReasonTests {
  @Test func theLaunchReasonAndSummaryComeFromTheEnvironmentBeforeTheFirstEvent() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp(environment: [
      "JETSAM_APP": "notes", "JETSAM_LAUNCH": "2", "JETSAM_LAUNCH_REASON": "afterExit",
      "JETSAM_PREVIOUS_EXIT": "reason=appWatchdog state=background time=2026-11-29T14:35:35Z",
      "JETSAM_STATE_SUMMARY": "count%3D12",
    ])
    #expect(app.appName == "notes")
    #expect(app.launchNumber == 2)
    #expect(
      app.launchReason
        == .afterExit(
          previousReason: "appWatchdog", previousState: "background",
          time: Date(timeIntervalSince1970: 1_795_962_935)))
    #expect(app.stateSummary == "count=12")
  }

  @Test func didFinishLaunchingCarriesTheLaunchReasonToTheDelegateAndTheApp() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp(environment: ["JETSAM_LAUNCH_REASON": "fresh"])
    let reasons = ReasonLog()
    let loop = Background { app.run(delegate: reasons) }
    daemon.send("hello version=1 app=notes launch=3")
    daemon.send(
      "event id=1 name=didFinishLaunching reason=afterExit previousReason=memoryPressure "
        + "previousState=suspended previousTime=2026-11-29T14:35:35.447Z summary=page%3D3 state=foreground")
    #expect(daemon.readLine() == "ack event=1")
    let seen = try #require(reasons.all.first)
    guard case .afterExit(let reason, let state, let time) = seen else {
      Issue.record("expected afterExit, got \(seen)")
      return
    }
    #expect(reason == "memoryPressure" && state == "suspended")
    #expect(abs((time ?? .distantPast).timeIntervalSince1970 - 1_795_962_935.447) < 0.001)
    #expect(app.launchReason == seen)
    #expect(app.stateSummary == "page=3")
    #expect(app.appName == "notes")
    #expect(app.launchNumber == 3)
    daemon.close()
    #expect(loop.value() != nil)
  }
}

/// Records the launch reasons a delegate is given.
private final class ReasonLog: JetsamApplicationDelegate, Sendable {
  private let reasons = Mutex<[LaunchReason]>([])
  var all: [LaunchReason] { reasons.withLock { $0 } }

  func applicationDidFinishLaunching(_ application: JetsamApplication, launchReason: LaunchReason) {
    reasons.withLock { $0.append(launchReason) }
  }
}
