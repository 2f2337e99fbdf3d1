import Testing

@testable import JetsamClient

@Suite(.timeLimit(.minutes(1))) struct StateReportingTests {
  @Test func settingTheStateSummarySendsItAndReadingGivesTheLatest() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp(environment: ["JETSAM_STATE_SUMMARY": "count%3D1"])
    #expect(app.stateSummary == "count=1")
    app.stateSummary = "page=3 of 10"
    #expect(daemon.readLine() == "stateSummary value=page%3D3%20of%2010")
    #expect(app.stateSummary == "page=3 of 10")
    app.stateSummary = nil
    #expect(daemon.readLine() == "stateSummary value=")
  }

  @Test func stateDigestsAreReportedWithTheirPhase() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    app.reportStateDigest("9f86d081", phase: .restored)
    app.reportStateDigest("2c26b46b", phase: .saved)
    #expect(daemon.readLine() == "stateDigest phase=restored value=9f86d081")
    #expect(daemon.readLine() == "stateDigest phase=saved value=2c26b46b")
    app.reportStateDigest("2c26b46b", phase: .saved, validFor: .milliseconds(1500))
    app.reportStateDigest("2c26b46b", phase: .resumed)
    #expect(daemon.readLine() == "stateDigest phase=saved value=2c26b46b validFor=1.500")
    #expect(daemon.readLine() == "stateDigest phase=resumed value=2c26b46b")
  }

  @Test func signpostsAreSentWithTheirPhase() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    app.signpost("save state", phase: .begin)
    app.signpost("save state", phase: .end)
    app.signpost("tapped")
    #expect(daemon.readLine() == "signpost name=save%20state phase=begin")
    #expect(daemon.readLine() == "signpost name=save%20state phase=end")
    #expect(daemon.readLine() == "signpost name=tapped phase=event")
  }

  @Test func aLineOverTheLimitIsNotSent() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let log = ErrorLog()
    log.attach(to: app)
    app.stateSummary = String(repeating: " ", count: 2000)
    #expect(log.all == [.lineTooLong(word: "stateSummary")])
    app.reportStateDigest("ab", phase: .saved)
    #expect(daemon.readLine() == "stateDigest phase=saved value=ab")
  }

  @Test func afterTheDaemonHangsUpRequestsFailAndSendsAreReported() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let log = ErrorLog()
    log.attach(to: app)
    daemon.close()
    #expect(app.nextEvent() == nil)
    #expect(app.beginBackgroundTask(withName: "late") == .invalid)
    app.reportStateDigest("x", phase: .saved)
    #expect(log.all == [.channelClosed, .channelClosed])
  }

  @Test func disconnectEndsTheEventLoop() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let loop = Background { app.run(delegate: RecordingDelegate()) }
    app.disconnect()
    #expect(loop.value() != nil)
    #expect(daemon.readLine() == nil)
  }
}
