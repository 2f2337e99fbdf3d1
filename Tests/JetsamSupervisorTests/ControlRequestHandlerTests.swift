import Foundation
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import Testing

@testable import JetsamShell

/// The control handler driven through a fake of what it sees of the daemon (``ControlView``): what it answers, what
/// it asks of the policy and the shell, and what it leaves alone when it refuses.
@Suite("Control request handler")
struct ControlRequestHandlerTests {
  /// A daemon as the handler sees it: a real policy fed what the handler submits, and the shell's answers scripted.
  final class FakeView: ControlView {
    var config = DaemonConfig()
    var appsDirectory = "/nonexistent/apps"
    let log = Logger(threshold: .error)
    var shuttingDown = false
    var state = TestPolicy()
    var policy: JetsamPolicy { state.policy }
    var startedAt = MonotonicClock.now()
    var cgroupMode = "v2"
    var deviceCgroup = "/jetsam.slice/device"
    let recordLog: ExitRecordLog
    var recordsWritten = 0
    var unwrittenRecords: [ExitRecord] = []
    var cgroups: [String: FakeCgroup] = [:]
    var stopsPending: Set<String> = []
    var failures: [String: (launch: Int, message: String)] = [:]
    var inFlight: Set<String> = []
    var diagnostics: DiagnosticStore? { nil }
    var ramBytes: Int64 = 4 << 30
    var availableBytes: Int64 = 3 << 30
    var thresholds = TestPolicy().policy.config.thresholds
    var balloon: (any MemoryBalloon)? { nil }
    var isJetsamSettled = true
    var exposition = "jetsam_pressure_level 0\n"
    /// Set: the policy refuses the next batch with it.
    var refusal: PolicyError?

    private(set) var submitted: [[PolicyEvent]] = []
    private(set) var continuedNoticed = 0
    private(set) var devicePublished: [Bool] = []
    private var settled: [String: [() -> Void]] = [:]
    /// Whether the state file's writer is slow: whoever waits for it waits until ``finishSaves()``.
    var holdingSaves = false
    private var waitingForSave: [() -> Void] = []

    init(directory: String) throws {
      recordLog = try ExitRecordLog(path: directory + "/exits.jsonl")
    }

    func cgroup(of name: String, pid: Int32) -> (any AppCgroupControl)? { cgroups[name] }
    func isStopPending(_ name: String) -> Bool { stopsPending.contains(name) }
    func spawnFailure(of name: String) -> (launch: Int, message: String)? { failures[name] }
    func expositionText() -> String { exposition }

    func submit(_ events: [PolicyEvent]) throws(PolicyError) {
      if let refusal { throw refusal }
      try state.submit(events)
      submitted.append(events)
    }
    func afterSuspensions(of apps: [String], then: @escaping () -> Void) { then() }
    func whenSpawnSettled(_ name: String, then: @escaping () -> Void) {
      guard inFlight.contains(name) else { return then() }
      settled[name, default: []].append(then)
    }
    func whenStateSaved(_ then: @escaping () -> Void) {
      guard holdingSaves else { return then() }
      waitingForSave.append(then)
    }
    func noticeContinued() { continuedNoticed += 1 }
    func inflateBalloon(bytes: Int64) throws {}
    func releaseBalloon() {}
    func addWaiter(
      timeout: Duration, what: String, check: @escaping ConditionWaiters.Check,
      then: @escaping (Result<Void, ControlError>) -> Void
    ) -> Result<Void, ControlError>? { check() }
    func watch(_ connection: ControlConnection, interval: Duration) {}
    func publishDevice(charging: Bool) { devicePublished.append(charging) }

    /// The state file's writer finishes: whoever waited for it hears of it.
    func finishSaves() {
      let waiting = waitingForSave
      waitingForSave = []
      for then in waiting { then() }
    }

    /// The spawner service answers: `name` runs as `pid`, and whoever waited for the answer hears of it.
    func settleSpawn(of name: String, pid: Int32) throws {
      inFlight.remove(name)
      try state.submit([.spawned(app: name, pid: pid, at: TestPolicy.at)])
      for then in settled.removeValue(forKey: name) ?? [] { then() }
    }
  }

  /// A handler on a fake view, answering a connection whose other end the test reads.
  final class Fixture {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-control-\(UUID())").path
    let view: FakeView
    let background = FakeBackground()
    let commandCheck = FakeCommandCheck()
    let handler: ControlRequestHandler
    let loop: EventLoop
    let connection: ControlConnection
    /// The client's end of the connection.
    let client: FileDescriptor

    init(peerUser: uid_t = 0) throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      view = try FakeView(directory: directory)
      handler = ControlRequestHandler(daemon: view, background: background, commandCheck: commandCheck)
      loop = try EventLoop()
      var fds: [Int32] = [0, 0]
      guard
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0
      else { throw SystemError.current("socketpair") }
      client = FileDescriptor(rawValue: fds[1])
      let stream = try LineStream(
        fd: FileDescriptor(rawValue: fds[0]), loop: loop, maxLineBytes: 1 << 16, maxQueuedOutput: 1 << 20
      ) { _ in }
      connection = ControlConnection(stream: stream, budget: OutputBudget(log: view.log))
      connection.peerUser = peerUser
    }

    deinit {
      // The stream closes its own descriptor.
      connection.close()
      client.close()
      try? FileManager.default.removeItem(atPath: directory)
    }

    /// Handles `request` as the control server does: an answer now, or nil with the reply awaited.
    func handle(_ request: ControlRequest) -> ControlResponse? {
      guard let answer = handler.handle(request, from: connection) else {
        connection.awaitingReply = true
        return nil
      }
      return answer
    }

    /// The replies the client got since the last call.
    func replies() throws -> [ControlResponse] {
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = recv(client.rawValue, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        guard count > 0 else { break }
        bytes += chunk[0..<count]
      }
      return try bytes.split(separator: UInt8(ascii: "\n")).map {
        try JSONDecoder().decode(ControlResponse.self, from: Data($0))
      }
    }
  }

  static func launch(_ app: String, command: [String]? = ["/usr/bin/mail"]) -> ControlRequest {
    var request = ControlRequest(verb: .launch, app: app)
    request.command = command
    return request
  }

  @Test("status: the daemon's figures and the apps counted by state")
  func status() throws {
    let fixture = try Fixture()
    fixture.view.startedAt = MonotonicClock.now().advanced(by: .seconds(-30))
    fixture.view.cgroupMode = "v1"
    fixture.view.recordsWritten = 12
    fixture.view.config.suspend.mode = .signal
    try fixture.view.state.run("mail", pid: 1000)
    try fixture.view.state.run("maps", pid: 1001, foreground: false)
    let status = try #require(fixture.handle(ControlRequest(verb: .status))?.status)
    #expect(status.version == Daemon.version)
    #expect(status.uptimeSeconds >= 30 && status.uptimeSeconds < 60)
    #expect(status.cgroupMode == "v1" && status.suspendMode == "signal")
    #expect(status.deviceCgroup == "/jetsam.slice/device")
    #expect(status.recordsWritten == 12 && status.recordLog == fixture.directory + "/exits.jsonl")
    #expect(status.appsByState == ["foreground": 1, "background": 1])
  }

  @Test("ps: continued apps are noticed first, then every app the policy knows, with its cgroup's figures")
  func ps() throws {
    let fixture = try Fixture()
    try fixture.view.state.run("mail", pid: 1000)
    try fixture.view.state.run("notes", pid: 1001, foreground: false)
    try fixture.view.state.submit([
      .exited(app: "notes", pid: 1001, end: .exited(code: 0), oomKilled: false, at: TestPolicy.at)
    ])
    let cgroup = FakeCgroup(name: "mail", limits: AppLimits(memoryBytes: 256 << 20))
    cgroup.memory = 64 << 20
    fixture.view.cgroups = ["mail": cgroup]
    let apps = try #require(fixture.handle(ControlRequest(verb: .ps))?.apps)
    #expect(fixture.view.continuedNoticed == 1)
    #expect(apps.map(\.name) == ["mail", "notes"])
    let mail = try #require(apps.first)
    #expect(mail.pid == 1000 && mail.state == "foreground" && mail.launch == 1)
    #expect(mail.memoryBytes == 64 << 20 && mail.memoryLimitBytes == 256 << 20)
    let notes = try #require(apps.last)
    #expect(notes.pid == nil && notes.state == "notRunning" && notes.memoryBytes == 0)
  }

  @Test("a launch of a running app is refused, and nothing is submitted")
  func launchOfRunningAppRefused() throws {
    let fixture = try Fixture()
    try fixture.view.state.run("mail", pid: 1000)
    let answer = try #require(fixture.handle(Self.launch("mail", command: ["/usr/bin/other"])))
    #expect(!answer.ok && answer.error?.code == .illegalTransition)
    #expect(fixture.view.submitted.isEmpty)
    #expect(fixture.view.policy.settings(of: "mail")?.launch?.command != ["/usr/bin/other"])
  }

  @Test("a launch while jetsamd stops is refused")
  func launchWhileStoppingRefused() throws {
    let fixture = try Fixture()
    fixture.view.shuttingDown = true
    let answer = try #require(fixture.handle(Self.launch("mail")))
    #expect(answer.error?.code == .launchFailed && answer.error?.message == "jetsamd is stopping")
    #expect(fixture.view.submitted.isEmpty && fixture.view.policy.app(named: "mail") == nil)
  }

  @Test("a launch the policy refuses leaves the app's settings as they were")
  func launchRefusedByPolicy() throws {
    let fixture = try Fixture()
    try fixture.view.submit([
      .configure(app: "mail", bandFloor: nil, launchCount: 0, launch: LaunchSpec(command: ["/usr/bin/old"]))
    ])
    fixture.view.refusal = .illegalTransition(app: "mail", from: .terminated, request: "launch")
    let answer = try #require(fixture.handle(Self.launch("mail", command: ["/usr/bin/new"])))
    #expect(answer.error?.code == .illegalTransition)
    #expect(fixture.view.policy.settings(of: "mail")?.launch?.command == ["/usr/bin/old"])
  }

  @Test("an ad-hoc launch: its spec in its settings, configure and launch submitted together, the app answered")
  func launchAccepted() throws {
    let fixture = try Fixture()
    var request = Self.launch("mail")
    request.background = true
    let answer = try #require(fixture.handle(request))
    #expect(answer.ok && answer.app?.name == "mail" && answer.app?.state == "foreground")
    let batch = try #require(fixture.view.submitted.first)
    guard case .configure("mail", let settings, 0) = batch.first, case .launch("mail", false, _) = batch.last else {
      Issue.record("expected configure then a background launch, got \(batch)")
      return
    }
    #expect(settings.adHoc && batch.count == 2)
    #expect(settings.launch?.command == ["/usr/bin/mail"])
    #expect(fixture.view.policy.settings(of: "mail")?.launch == settings.launch)
  }

  @Test("a launch whose command cannot run is refused with the check's words, and nothing is submitted")
  func launchRefusedByItsCommandCheck() throws {
    let fixture = try Fixture()
    let problem = "--ready: /srv/x/ready.sh: cannot be reached by user app (Permission denied)"
    var request = Self.launch("mail")
    request.ready = ["/srv/x/ready.sh", "--now"]
    #expect(fixture.handle(request) == nil)
    #expect(fixture.commandCheck.checked == [["--ready /srv/x/ready.sh"]])
    #expect(try fixture.replies().isEmpty, "nothing before the check's answer")
    fixture.commandCheck.answer(problem)
    let reply = try #require(try fixture.replies().first)
    #expect(!reply.ok && reply.error?.message == problem)
    #expect(fixture.view.submitted.isEmpty)
    // Once the check finds nothing, the same launch goes ahead.
    #expect(fixture.handle(request) == nil)
    fixture.commandCheck.answer(nil)
    #expect(try fixture.replies().first?.ok == true)
    #expect(fixture.view.submitted.count == 1)
  }

  @Test("a launch the spawner service answers later is answered then, with the pid")
  func launchAnsweredLater() throws {
    let fixture = try Fixture()
    fixture.view.inFlight = ["mail"]
    #expect(fixture.handle(Self.launch("mail")) == nil)
    #expect(try fixture.replies().isEmpty, "nothing before the spawner's answer")
    try fixture.view.settleSpawn(of: "mail", pid: 4242)
    let reply = try #require(try fixture.replies().first)
    #expect(reply.ok && reply.app?.name == "mail" && reply.app?.pid == 4242)
  }

  @Test("a launch is answered once the state file holds the new process, and not before")
  func launchAnsweredOnceSaved() throws {
    let fixture = try Fixture()
    fixture.view.inFlight = ["mail"]
    fixture.view.holdingSaves = true
    #expect(fixture.handle(Self.launch("mail")) == nil)
    try fixture.view.settleSpawn(of: "mail", pid: 4242)
    #expect(try fixture.replies().isEmpty, "nothing while the state file does not hold pid 4242")
    fixture.view.finishSaves()
    let reply = try #require(try fixture.replies().first)
    #expect(reply.ok && reply.app?.pid == 4242)
    // The answer names the process the spawn started even when that has ended by the time the file holds it.
    fixture.view.inFlight = ["notes"]
    #expect(fixture.handle(Self.launch("notes")) == nil)
    try fixture.view.settleSpawn(of: "notes", pid: 4343)
    try fixture.view.state.submit([
      .exited(app: "notes", pid: 4343, end: .exited(code: 3), oomKilled: false, at: TestPolicy.at)
    ])
    #expect(try fixture.replies().isEmpty)
    fixture.view.finishSaves()
    let ended = try #require(try fixture.replies().first)
    #expect(ended.app?.name == "notes" && ended.app?.pid == 4343)
  }

  @Test("device: the switch goes to the policy and the watchers, and the answer says it")
  func deviceCharging() throws {
    let fixture = try Fixture()
    var request = ControlRequest(verb: .device)
    request.charging = true
    let answer = try #require(fixture.handle(request))
    #expect(answer.device?.charging == true)
    #expect(fixture.view.devicePublished == [true])
    guard case .setCharging(true, _)? = fixture.view.submitted.first?.first else {
      Issue.record("expected setCharging, got \(fixture.view.submitted)")
      return
    }
  }

  @Test("pressure: the view's figures, the policy's level, the config's mode")
  func pressure() throws {
    let fixture = try Fixture()
    fixture.view.availableBytes = 123 << 20
    fixture.view.config.device.ram = .bytes(4 << 30)
    let info = try #require(fixture.handle(ControlRequest(verb: .pressure))?.pressure)
    #expect(info.level == .normal && info.forcedLevel == nil && info.mode == "device")
    #expect(info.ramBytes == 4 << 30 && info.availableBytes == 123 << 20 && info.balloonBytes == 0)
  }

  @Test("metrics --prometheus: the exposition as the view renders it")
  func prometheus() throws {
    let fixture = try Fixture()
    fixture.view.exposition = "jetsam_pressure_level 3\n"
    var request = ControlRequest(verb: .metrics)
    request.format = "prometheus"
    #expect(fixture.handle(request)?.exposition == "jetsam_pressure_level 3\n")
  }

  @Test("exits: read off the loop, and answered once the read is done")
  func exitsOffTheLoop() throws {
    let fixture = try Fixture()
    fixture.background.holding = true
    #expect(fixture.handle(ControlRequest(verb: .exits)) == nil)
    #expect(try fixture.replies().isEmpty)
    fixture.background.finish()
    let reply = try #require(try fixture.replies().first)
    #expect(reply.ok && reply.exits == [])
  }

  @Test("metrics: a launch whose record is still on its way to the log counts, and a record in both counts once")
  func metricsCountUnwrittenRecords() throws {
    let fixture = try Fixture()
    func record(_ app: String, pid: Int32) -> ExitRecord {
      ExitRecord(
        app: app, pid: pid, launch: 1, reason: .memoryPressure, terminationReason: "SIGKILL", endedBy: .jetsam,
        state: "suspended", signal: 9, exitCode: nil, aliveSeconds: 2, stateSeconds: 1, pressureLevel: .critical,
        deviceAvailableBytes: 0)
    }
    // "logged" is durable and, as the loop has not heard so yet, still queued; "queued" is only queued.
    try fixture.view.recordLog.append(record("logged", pid: 7))
    fixture.view.unwrittenRecords = [record("logged", pid: 7), record("queued", pid: 8)]
    fixture.background.holding = true
    #expect(fixture.handle(ControlRequest(verb: .metrics)) == nil)
    fixture.background.finish()
    let reply = try #require(try fixture.replies().first)
    let payloads = try #require(reply.metrics)
    #expect(payloads.map(\.metaData.bundleIdentifier) == ["logged", "queued"])
    #expect(payloads.allSatisfy { $0.applicationExitMetrics.backgroundExitData.counts[.memoryPressure] == 1 })
  }
}
