import Glibc
import JetsamCore
import JetsamPlatform
import JetsamWire
import Testing

@testable import JetsamShell

/// The apps' channels: what an app writes becomes a policy message or an error line back; what the policy sends
/// goes down the channel of the app it is for, as PROTOCOL.md spells it.
@Suite("App channels")
struct AppChannelsTests {
  /// Opens fake channels, or fails to while `failing`.
  final class Opener {
    var failing = false
    private(set) var opened: [FakeChannel] = []

    func open(_ fd: FileDescriptor, _ onInput: @escaping (LineStream.Input) -> Void) throws -> any AppChannelEndpoint {
      if failing { throw SystemError(code: EMFILE, "epoll_ctl") }
      let channel = FakeChannel(fd: fd, onInput: onInput)
      opened.append(channel)
      return channel
    }
  }

  final class Harness {
    let loop = FakeLoop()
    let opener = Opener()
    let channels: AppChannels
    let apps = RunningApps()
    let inbox = RecordingInbox()
    var reported: [PolicyEvent] { inbox.events }

    init() {
      channels = AppChannels(
        loop: loop, log: Logger(threshold: .error), apps: apps, inbox: inbox, open: opener.open)
    }

    /// App `name` running as `pid`, its channel attached.
    @discardableResult
    func attach(_ name: String, pid: Int32) throws -> FakeChannel {
      let app = runningApp(name, pid: pid).app
      apps.add(app)
      try #require(channels.attach(scratchDescriptor(), to: app))
      return try #require(app.channel as? FakeChannel)
    }
  }

  @Test("a line from the app becomes a policy message at the loop's time; hello with an id is answered by the channel")
  func linesBecomeMessages() throws {
    let harness = Harness()
    let channel = try harness.attach("a", pid: 10)
    let at = harness.loop.now()
    channel.write("ack event=3")
    channel.write("hello version=1 id=5")
    channel.write("beginBackgroundTask id=6 name=index kind=processing")
    #expect(
      harness.reported == [
        .appMessage(app: "a", pid: 10, message: .acknowledge(event: 3), at: at),
        .appMessage(app: "a", pid: 10, message: .hello, at: at),
        .appMessage(
          app: "a", pid: 10, message: .beginBackgroundTask(requestID: 6, name: "index", kind: .processing), at: at),
      ])
    #expect(channel.lines.map(\.encoded) == ["reply id=5"], "only hello is answered by the channel itself")
  }

  @Test("a line jetsamd cannot take is answered with its code and id, and reaches no one")
  func badLines() throws {
    let harness = Harness()
    let channel = try harness.attach("a", pid: 10)
    channel.write("ack x1=3")
    channel.write("fly to=moon id=4")
    channel.write("ack id=7")
    channel.write("beginBackgroundTask id=8 name=x kind=urgent")
    channel.onInput(.tooLong)
    #expect(harness.reported.isEmpty)
    #expect(channel.lines.map { $0[.code] } == ["badLine", "unknownWord", "missingField", "badLine", "tooLong"])
    #expect(channel.lines.map { $0[.id] } == [nil, "4", "7", "8", nil])
    #expect(channel.lines[0][.message]?.contains("x1=3") == true)
    // The kinds it takes are named from the protocol's list.
    let kinds = BackgroundTaskKind.allCases.map(\.rawValue).joined(separator: ", ")
    #expect(channel.lines[3][.message] == "kind=urgent is not a task kind (\(kinds))")
  }

  @Test("events, replies and errors go down the channel of the app they are for, encoded; a stale pid gets nothing")
  func outgoing() throws {
    let harness = Harness()
    let a = try harness.attach("a", pid: 10)
    let b = try harness.attach("b", pid: 20)
    harness.channels.deliver(AppEvent(id: 1, kind: .didBecomeActive), to: "a", pid: 10)
    harness.channels.reply(to: "b", pid: 20, requestID: 3, .taskBegun(task: 2))
    harness.channels.appError(to: "b", pid: 20, requestID: nil, code: .unknownTask, message: "no task 9")
    harness.channels.deliver(AppEvent(id: 2, kind: .willTerminate), to: "a", pid: 11)
    harness.channels.reply(to: "c", pid: 30, requestID: 1, .done)
    #expect(a.lines.map(\.encoded) == ["event id=1 name=didBecomeActive"])
    #expect(b.lines.map(\.encoded) == ["reply id=3 task=2", "error code=unknownTask message=no%20task%209"])
  }

  @Test("a memory warning names the level by the protocol's words, for every level that warns")
  func warningLevels() throws {
    let harness = Harness()
    let channel = try harness.attach("a", pid: 10)
    let warning = PressureLevel.allCases.filter { $0 >= .warning }
    for (index, level) in warning.enumerated() {
      harness.channels.deliver(AppEvent(id: index + 1, kind: .memoryWarning, level: level), to: "a", pid: 10)
    }
    #expect(channel.lines.map { $0[.level] } == MemoryWarningLevelName.allCases.map(\.rawValue))
  }

  @Test("lines from a process that is no longer the app's are dropped unanswered")
  func staleChannel() throws {
    let harness = Harness()
    let channel = try harness.attach("a", pid: 10)
    harness.apps.add(runningApp("a", pid: 11).app)
    channel.write("hello id=1")
    channel.write("fly")
    #expect(harness.reported.isEmpty && channel.lines.isEmpty)
  }

  @Test("a channel that cannot be watched is not attached")
  func cannotWatch() {
    let harness = Harness()
    harness.opener.failing = true
    let app = runningApp("a", pid: 10).app
    harness.apps.add(app)
    #expect(!harness.channels.attach(scratchDescriptor(), to: app))
    #expect(app.channel == nil && harness.opener.opened.isEmpty)
  }
}
