import JetsamCore
import JetsamProtocol
import JetsamValues
import Testing

@testable import JetsamShell

/// What `watch` clients are pushed, driven through a fake audience (``LiveAudience``) and a fake loop: the policy's
/// actions as changes, durable records, the device's switch, and memory samples at each watcher's interval; and
/// nothing built or read while nobody watches.
@Suite("Live feed")
struct LiveFeedTests {
  /// A client of the feed.
  final class FakeWatcher: LiveWatcher {
    var watch: WatchSubscription?
  }

  /// The control server as the feed sees it: the clients the test connects, what was pushed to whom.
  final class FakeAudience: LiveAudience {
    /// Every connected client, watching or not.
    var clients: [FakeWatcher] = []
    private(set) var published: [LiveChange] = []
    private(set) var sent: [(change: LiveChange?, to: [FakeWatcher])] = []

    var hasWatchers: Bool { clients.contains { $0.watch != nil } }
    var watchers: [FakeWatcher] { clients.filter { $0.watch != nil } }
    func publish(_ change: LiveChange) { published.append(change) }
    func send(_ response: ControlResponse, to clients: [FakeWatcher]) { sent.append((response.change, clients)) }
  }

  /// What the feed reads of the daemon, scripted, with every read counted.
  final class FakeDaemon {
    var apps: [String: (launch: Int, pid: Int32?)] = [:]
    var appMemory: [String: Int64] = [:]
    var available: Int64 = 0
    private(set) var reads = 0

    var sources: LiveFeed<FakeAudience>.Sources {
      LiveFeed.Sources(
        app: { [unowned self] name in
          self.reads += 1
          return self.apps[name]
        },
        appMemory: { [unowned self] in
          self.reads += 1
          return self.appMemory
        },
        availableBytes: { [unowned self] in
          self.reads += 1
          return self.available
        })
    }
  }

  let loop = FakeLoop()
  let audience = FakeAudience()
  let daemon = FakeDaemon()
  let feed: LiveFeed<FakeAudience>

  init() throws {
    daemon.apps = ["mail": (launch: 3, pid: 1000)]
    daemon.appMemory = ["mail": 64 << 20]
    daemon.available = 3 << 30
    feed = try LiveFeed(loop: loop, control: audience, sources: daemon.sources)
  }

  /// A client connected and watching, its samples `interval` apart.
  func watcher(interval: Duration = .seconds(1)) -> FakeWatcher {
    let watcher = FakeWatcher()
    audience.clients.append(watcher)
    feed.watch(watcher, interval: interval)
    return watcher
  }

  /// The memory samples sent so far, with whom each went to.
  var memorySamples: [(change: LiveChange, to: [FakeWatcher])] {
    audience.sent.compactMap { sent in sent.change.map { ($0, sent.to) } }.filter { $0.change.kind == .memory }
  }

  @Test("nothing is built, read or sent while nobody watches")
  func nothingWithoutWatchers() {
    audience.clients.append(FakeWatcher())
    feed.publish(.stateChanged(app: "mail", from: .background, to: .suspended, band: .idle))
    feed.publish(AppSupervisorTests.record("mail", pid: 1000))
    feed.publishDevice(charging: true)
    loop.advance(by: .seconds(10))
    #expect(audience.published.isEmpty && audience.sent.isEmpty)
    #expect(daemon.reads == 0)
    #expect(loop.timerFirings == 0)
  }

  @Test("a state change reaches the watchers with the app's pid and launch, stamped with the loop's clock")
  func stateChange() throws {
    _ = watcher()
    loop.advance(by: .milliseconds(250))
    feed.publish(.stateChanged(app: "mail", from: .background, to: .suspended, band: .idle))
    let change = try #require(audience.published.only)
    var expected = LiveChange(.state, at: Instant.seconds(100).advanced(by: .milliseconds(250)).nanoseconds)
    expected.app = "mail"
    expected.pid = 1000
    expected.launch = 3
    expected.from = .background
    expected.to = .suspended
    expected.band = .idle
    #expect(change == expected)
  }

  @Test("defuncted sockets reach the watchers as a sockets change, with what was defuncted and any problem")
  func socketsDefuncted() throws {
    _ = watcher()
    let socket = DefunctedSocket(
      protocol: "tcp", local: "[::1]:8080", remote: "[::]:0", state: "listen", pid: 1001)
    feed.publish(.socketsDefuncted(app: "mail", pid: 1000, sockets: [socket], problem: "SOCK_DESTROY: EPERM"))
    let change = try #require(audience.published.only)
    #expect(change.kind == .sockets && change.app == "mail" && change.pid == 1000 && change.launch == 3)
    #expect(change.sockets == [socket] && change.problem == "SOCK_DESTROY: EPERM")
    // Asking for the destruction is no change to watch.
    feed.publish(.defunctSockets(app: "mail", pid: 1000))
    #expect(audience.published.count == 1)
  }

  @Test("each change about an app says which process it is about, and what happened to it")
  func appChanges() {
    _ = watcher()
    feed.publish(.kill(app: "mail", pid: 999, reason: .memoryPressure, decision: .jetsamAtCritical([])))
    feed.publish(.deliver(app: "mail", pid: 1000, event: AppEvent(id: 1, kind: .memoryWarning, level: .urgent)))
    feed.publish(.diagnose(app: "mail", pid: 1000, .hang(event: .didEnterBackground, seconds: 5)))
    let (kill, warning, diagnostic) = (audience.published[0], audience.published[1], audience.published[2])
    // A kill names the process the policy picked, even if another runs by now.
    #expect(kill.kind == .kill && kill.pid == 999 && kill.launch == 3 && kill.reason == .memoryPressure)
    #expect(warning.kind == .appEvent && warning.name == "memoryWarning" && warning.level == .urgent)
    #expect(diagnostic.kind == .diagnostic && diagnostic.name == "hang" && diagnostic.app == "mail")
    #expect(audience.published.count == 3)
  }

  @Test("a level change carries both levels and the memory available; actions of no interest push nothing")
  func levelChangeAndSilence() throws {
    _ = watcher()
    feed.publish(.levelChanged(from: .normal, to: .urgent, available: 512 << 20))
    feed.publish(.spawn(app: "mail", launch: 4, spec: LaunchSpec(command: ["/bin/mail"])))
    let change = try #require(audience.published.only)
    #expect(change.kind == .pressure && change.app == nil)
    #expect(change.previousLevel == .normal && change.level == .urgent && change.availableBytes == 512 << 20)
  }

  @Test("a durable exit record and a switch of the device's power go to the watchers as they are")
  func recordAndDevice() {
    _ = watcher()
    let record = AppSupervisorTests.record("mail", pid: 1000)
    feed.publish(record)
    feed.publishDevice(charging: false)
    #expect(audience.published.map(\.kind) == [.exit, .device])
    let exit = audience.published[0]
    #expect(exit.app == "mail" && exit.pid == 1000 && exit.launch == record.launch && exit.record == record)
    #expect(audience.published[1].charging == false)
  }

  @Test("a watcher's first memory sample comes one interval after it starts watching, then one each interval")
  func memoryEveryInterval() throws {
    let watcher = watcher(interval: .seconds(1))
    loop.advance(by: .milliseconds(999))
    #expect(memorySamples.isEmpty)
    loop.advance(by: .milliseconds(1))
    let first = try #require(memorySamples.only)
    #expect(first.to.count == 1 && first.to[0] === watcher)
    #expect(first.change.availableBytes == 3 << 30 && first.change.memory == ["mail": 64 << 20])
    #expect(first.change.monotonicNanoseconds == Instant.seconds(101).nanoseconds)
    daemon.available = 1 << 30
    loop.advance(by: .seconds(1))
    #expect(memorySamples.count == 2 && memorySamples.last?.change.availableBytes == 1 << 30)
  }

  @Test("watchers at different intervals each get their own; those due together share one sample")
  func intervalsPerWatcher() {
    let fast = watcher(interval: .seconds(1))
    let slow = watcher(interval: .seconds(3))
    loop.advance(by: .seconds(2))
    #expect(memorySamples.count == 2 && memorySamples.allSatisfy { $0.to.count == 1 && $0.to[0] === fast })
    loop.advance(by: .seconds(1))
    let together = memorySamples[2].to
    #expect(memorySamples.count == 3 && together.count == 2)
    #expect(together.contains { $0 === fast } && together.contains { $0 === slow })
  }

  @Test("after a stall a watcher gets one sample, not the ones it missed, and the next comes half an interval on")
  func noBunchingAfterStall() {
    _ = watcher(interval: .seconds(1))
    // The loop was busy for five seconds: the timer fires late, once.
    loop.clock = loop.clock.advanced(by: .milliseconds(5_300))
    loop.advance(by: .zero)
    #expect(memorySamples.count == 1)
    loop.advance(by: .milliseconds(499))
    #expect(memorySamples.count == 1)
    loop.advance(by: .milliseconds(1))
    #expect(memorySamples.count == 2)
  }

  @Test("a watcher dropped (closed, or evicted past the budget) gets nothing more; with none left nothing is read")
  func droppedWatcher() {
    let kept = watcher(interval: .seconds(1))
    let closed = watcher(interval: .seconds(1))
    let evicted = watcher(interval: .seconds(1))
    loop.advance(by: .seconds(1))
    #expect(memorySamples.last?.to.count == 3)
    audience.clients.removeAll { $0 === closed }
    evicted.watch = nil
    loop.advance(by: .seconds(1))
    #expect(memorySamples.count == 2 && memorySamples[1].to.count == 1 && memorySamples[1].to[0] === kept)
    audience.clients.removeAll { $0 === kept }
    let reads = daemon.reads
    loop.advance(by: .seconds(10))
    #expect(memorySamples.count == 2 && daemon.reads == reads)
    feed.publish(.levelChanged(from: .normal, to: .warning, available: 1))
    #expect(audience.published.isEmpty)
  }
}
