import Foundation
import Synchronization
import Testing

@testable import JetsamClient

@Suite(.timeLimit(.minutes(1))) struct BackgroundTaskTests {
  @Test func beginAndEndABackgroundTask() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let begin = Background { app.beginBackgroundTask(withName: "upload photos") }
    let request = try daemon.readRequest()
    #expect(request.line.word == "beginBackgroundTask")
    #expect(request.line["name"] == "upload photos")
    #expect(request.line.encoded == "beginBackgroundTask id=\(request.id) name=upload%20photos")
    daemon.send("reply id=\(request.id) task=7")
    let task = try #require(begin.value())
    #expect(task == BackgroundTaskIdentifier(rawValue: 7))

    app.endBackgroundTask(task)
    #expect(daemon.readLine() == "endBackgroundTask task=7")
    app.endBackgroundTask(.invalid)
    #expect(daemon.readLine(timeout: .milliseconds(200)) == nil)
  }

  @Test func aProcessingTaskSaysItsKind() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let begin = Background { app.beginBackgroundTask(withName: "index", kind: .processing) }
    let request = try daemon.readRequest()
    #expect(request.line.encoded == "beginBackgroundTask id=\(request.id) name=index kind=processing")
    daemon.send("reply id=\(request.id) task=2")
    #expect(begin.value() == BackgroundTaskIdentifier(rawValue: 2))
  }

  @Test func concurrentRequestsAreMatchedToTheirRepliesById() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let first = Background { app.beginBackgroundTask(withName: "first") }
    let firstRequest = try daemon.readRequest()
    let second = Background { app.beginBackgroundTask(withName: "second") }
    let secondRequest = try daemon.readRequest()
    #expect(firstRequest.id != secondRequest.id)
    // Answered in the opposite order, and with an event in between.
    daemon.send("reply id=\(secondRequest.id) task=20")
    daemon.send("event id=1 name=memoryWarning level=warning")
    daemon.send("reply id=\(firstRequest.id) task=10")
    #expect(first.value() == BackgroundTaskIdentifier(rawValue: 10))
    #expect(second.value() == BackgroundTaskIdentifier(rawValue: 20))
  }

  @Test func aRefusedOrUnansweredRequestGivesAnInvalidTask() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp(replyTimeout: .milliseconds(300))
    let log = ErrorLog()
    log.attach(to: app)

    let refused = Background { app.beginBackgroundTask(withName: "x") }
    let request = try daemon.readRequest()
    daemon.send("error code=missingField message=name id=\(request.id)")
    #expect(refused.value() == .invalid)

    let unanswered = Background { app.beginBackgroundTask(withName: "y") }
    let late = try daemon.readRequest()
    #expect(unanswered.value() == .invalid)
    daemon.send("reply id=\(late.id) task=3")  // too late: dropped

    #expect(
      log.all == [
        .daemonError(code: "missingField", message: "name"), .replyTimedOut(request: "beginBackgroundTask"),
      ])
  }

  @Test func theExpirationHandlerRunsOnBackgroundTaskWillExpire() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let delegate = RecordingDelegate()
    let loop = Background { app.run(delegate: delegate) }
    let expired = Flag()
    let other = Flag()
    let begin = Background {
      app.beginBackgroundTask(withName: "upload", expirationHandler: { expired.raise() })
    }
    let request = try daemon.readRequest()
    daemon.send("reply id=\(request.id) task=4")
    let task = try #require(begin.value())
    let beginOther = Background { app.beginBackgroundTask(withName: "other", expirationHandler: { other.raise() }) }
    let otherRequest = try daemon.readRequest()
    daemon.send("reply id=\(otherRequest.id) task=5")
    #expect(beginOther.value() == BackgroundTaskIdentifier(rawValue: 5))

    daemon.send("event id=1 name=backgroundTaskWillExpire task=4 name=upload")
    #expect(expired.wait())
    #expect(!other.wait(timeout: .milliseconds(200)))
    app.endBackgroundTask(task)
    #expect(daemon.readLine() == "endBackgroundTask task=4", "backgroundTaskWillExpire itself is not acknowledged")
    #expect(delegate.calls == [])
    daemon.close()
    #expect(loop.value() != nil)
  }

  @Test func theExpiringTaskIsNamedInTheEvent() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    daemon.send("event id=9 name=backgroundTaskWillExpire task=4 name=upload")
    daemon.close()
    let event = try #require(app.nextEvent())
    #expect(event.kind == .backgroundTaskWillExpire(BackgroundTaskIdentifier(rawValue: 4)))
    #expect(event.name == "backgroundTaskWillExpire")
    #expect(event.fields["taskName"] == "upload")
    #expect(!event.requiresAcknowledgement)
  }

  @Test func backgroundTimeRemainingAsksTheDaemon() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    for (answer, expected) in [("inf", Double.infinity), ("29.950", 29.95), ("0", 0)] {
      let remaining = Background { app.backgroundTimeRemaining }
      let request = try daemon.readRequest()
      #expect(request.line.encoded == "backgroundTimeRemaining id=\(request.id)")
      daemon.send("reply id=\(request.id) seconds=\(answer)")
      #expect(remaining.value() == expected)
    }
  }

  @Test func withoutTheDaemonTheRemainingTimeFollowsTheApplicationState() throws {
    let daemon = try FakeDaemon()
    let app = try daemon.connectApp()
    let log = ErrorLog()
    log.attach(to: app)
    let otherDaemon = try FakeDaemon()
    let foreground = try otherDaemon.connectApp()
    log.attach(to: foreground)
    foreground.disconnect()
    while foreground.nextEvent() != nil {}
    #expect(foreground.backgroundTimeRemaining == .infinity)
    daemon.send("event id=1 name=didEnterBackground")
    daemon.close()
    #expect(app.nextEvent()?.kind == .didEnterBackground)
    #expect(app.nextEvent() == nil, "the channel has closed")
    #expect(app.applicationState == .background)
    #expect(app.backgroundTimeRemaining == 0)
    #expect(log.all.last == .channelClosed)
  }
}
