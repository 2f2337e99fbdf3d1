import Foundation
import JetsamWire
import Testing

@testable import JetsamClient

@Suite(.timeLimit(.minutes(1))) struct EventDeliveryTests {
  @Test func theClientSaysHelloOnConnecting() throws {
    let daemon = try FakeDaemon()
    _ = try daemon.connectApp()
  }

  @Test func anEventIsAcknowledgedOnlyAfterItsHandlerReturns() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let delegate = RecordingDelegate(holding: "didEnterBackground")
    let loop = Background { app.run(delegate: delegate) }

    daemon.send("event id=1 name=didEnterBackground")
    #expect(delegate.entered.wait())
    #expect(daemon.readLine(timeout: .milliseconds(300)) == nil)
    delegate.releaseHeldHandler()
    #expect(daemon.readLine() == "ack event=1")
    #expect(delegate.calls == ["didEnterBackground@background"])

    daemon.close()
    #expect(loop.value() != nil, "run(delegate:) returns when the daemon hangs up")
  }

  @Test func aLifecycleGoesToTheDelegateInOrderWithTheApplicationState() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let delegate = RecordingDelegate()
    let loop = Background { app.run(delegate: delegate) }

    daemon.send("event id=1 name=didFinishLaunching reason=fresh state=foreground")
    #expect(daemon.readLine() == "ack event=1")
    for (id, name) in [(2, "didBecomeActive"), (3, "willResignActive"), (4, "didEnterBackground")] {
      daemon.send("event id=\(id) name=\(name)")
      #expect(daemon.readLine() == "ack event=\(id)")
    }
    // memoryWarning needs no ack: the next line is the ack of the event after it.
    daemon.send("event id=5 name=memoryWarning level=urgent")
    daemon.send("event id=6 name=willEnterForeground")
    #expect(daemon.readLine() == "ack event=6")
    daemon.send("event id=7 name=didSomethingNew extra=1")
    #expect(daemon.readLine() == "ack event=7", "an unknown event is acknowledged: a missing ack is a kill")
    daemon.send("event id=8 name=willTerminate")
    #expect(daemon.readLine() == "ack event=8")
    #expect(loop.value() != nil, "run(delegate:) returns after willTerminate")

    #expect(
      delegate.calls == [
        "didFinishLaunching:fresh@inactive", "didBecomeActive@active", "willResignActive@inactive",
        "didEnterBackground@background", "memoryWarning:urgent@background", "willEnterForeground@inactive",
        "unknown:didSomethingNew@inactive", "willTerminate@inactive",
      ])
  }

  @Test func aReturnToTheForegroundTellsHowLongTheAppWasAwayAndSuspended() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let loop = Background { app.run(delegate: RecordingDelegate()) }
    #expect(app.backgroundDuration == nil && app.suspendedDuration == nil, "nothing before the first return")
    daemon.send("event id=1 name=willEnterForeground backgroundFor=12.045 suspendedFor=11.000")
    #expect(daemon.readLine() == "ack event=1")
    #expect(app.backgroundDuration == .milliseconds(12_045))
    #expect(app.suspendedDuration == .seconds(11))
    let line = try AppLine(parsing: Array("event id=2 name=didBecomeActive suspendedFor=x".utf8))
    let event = JetsamEvent(line: line, acknowledge: { _ in })
    #expect(event != nil && event?.suspendedDuration == nil, "an unreadable duration is no duration")
    daemon.close()
    #expect(loop.value() != nil)
  }

  @Test func aLaunchIntoTheBackgroundStartsInTheBackgroundState() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let delegate = RecordingDelegate()
    let loop = Background { app.run(delegate: delegate) }
    daemon.send("event id=1 name=didFinishLaunching reason=fresh state=background")
    #expect(daemon.readLine() == "ack event=1")
    #expect(delegate.calls == ["didFinishLaunching:fresh@background"])
    daemon.close()
    #expect(loop.value() != nil)
  }

  @Test func theEventsSequenceDeliversEventsAndAcknowledgesWhenAsked() async throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    daemon.send("event id=1 name=didFinishLaunching reason=fresh state=foreground")
    daemon.send("event id=2 name=memoryWarning level=critical")
    daemon.send("event id=3 name=didBecomeActive")
    daemon.send("event id=4 name=willTerminate")

    var seen: [JetsamEvent.Kind] = []
    for await event in app.events {
      seen.append(event.kind)
      event.acknowledge()
      event.acknowledge()  // a second call sends nothing
    }
    #expect(
      seen == [.didFinishLaunching(.fresh), .memoryWarning(.critical), .didBecomeActive, .willTerminate])
    #expect(daemon.readLine() == "ack event=1")
    #expect(daemon.readLine() == "ack event=3")
    #expect(daemon.readLine() == "ack event=4")
    #expect(daemon.readLine(timeout: .milliseconds(200)) == nil)
  }

  @Test func everyLevelOfTheProtocolReadsAsItsConstant() async throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    for (index, level) in MemoryWarningLevelName.allCases.enumerated() {
      daemon.send("event id=\(index + 1) name=memoryWarning level=\(level.rawValue)")
    }
    // Without a level it is a warning; a level from a newer daemon is kept as it came.
    daemon.send("event id=10 name=memoryWarning")
    daemon.send("event id=11 name=memoryWarning level=dire")
    daemon.close()
    var seen: [JetsamEvent.Kind] = []
    for await event in app.events { seen.append(event.kind) }
    #expect(
      seen == [.memoryWarning(.warning), .memoryWarning(.urgent), .memoryWarning(.critical)] + [
        .memoryWarning(.warning), .memoryWarning(MemoryWarningLevel(rawValue: "dire")),
      ])
    #expect(MemoryWarningLevel(rawValue: "dire").name == nil && MemoryWarningLevel.urgent.name == .urgent)
  }

  @Test func theEventsSequenceEndsWhenTheDaemonHangsUp() async throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    daemon.send("event id=1 name=didBecomeActive")
    daemon.close()
    var names: [String] = []
    for await event in app.events { names.append(event.name) }
    #expect(names == ["didBecomeActive"])
  }

  @Test func unreadableLinesAndUnanswerableErrorsGoToTheErrorHandler() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let log = ErrorLog()
    log.attach(to: app)
    let delegate = RecordingDelegate()
    let loop = Background { app.run(delegate: delegate) }
    daemon.send("event name=didBecomeActive")  // no id: cannot be acknowledged
    daemon.send("reply id=%G")
    daemon.send("error code=unknownTask message=no%20such%20task")
    daemon.send("event id=1 name=didBecomeActive")
    #expect(daemon.readLine() == "ack event=1")
    #expect(
      log.all == [
        .malformedLine("event name=didBecomeActive"),
        .malformedLine(#"reply id=%G (field 1 "id=%G" at column 10: % must be followed by two hex digits)"#),
        .daemonError(code: "unknownTask", message: "no such task"),
      ])
    daemon.close()
    #expect(loop.value() != nil)
  }

  @Test func aDescriptorThatIsNotASocketIsRefused() throws {
    var pipeEnds: [Int32] = [-1, -1]
    #expect(pipe(&pipeEnds) == 0)
    defer {
      for end in pipeEnds { _ = close(end) }
    }
    #expect(throws: JetsamClientError.invalidDescriptor("descriptor \(pipeEnds[0]) is not a socket")) {
      try JetsamApplication(fileDescriptor: pipeEnds[0])
    }
  }
}
