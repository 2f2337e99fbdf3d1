import Foundation
import Glibc
import JetsamConfig
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import Testing

@testable import JetsamShell

/// The control handler's four families, each driven through a fake of what it sees of the daemon (its
/// `…ControlView`): what it answers, what
/// it asks of the policy and the shell, and what it leaves alone when it refuses.
@Suite("Control request handler")
struct ControlRequestHandlerTests {
  /// The handler over the four request families, each on a fake of its own view of the daemon, answering a
  /// connection whose other end the test reads.
  final class Fixture {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jetsam-control-\(UUID())").path
    let apps = FakeAppView()
    let status: FakeStatusView
    let pressure = FakePressureView()
    let records: FakeRecordView
    let background = FakeBackground()
    let commandCheck = FakeCommandCheck()
    let handler: ControlRequestHandler
    let loop: EventLoop
    let connection: ControlConnection
    /// The client's end of the connection.
    let client: FileDescriptor

    init(peerUser: uid_t = 0) throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let recordLog = try ExitRecordLog(path: directory + "/exits.jsonl")
      status = FakeStatusView(recordLog: recordLog)
      records = FakeRecordView(recordLog: recordLog)
      handler = ControlRequestHandler(
        apps: AppRequests(daemon: apps, commandCheck: commandCheck), status: StatusRequests(daemon: status),
        pressure: PressureRequests(daemon: pressure), records: RecordRequests(daemon: records, background: background))
      loop = try EventLoop()
      var fds: [Int32] = [0, 0]
      guard
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0
      else { throw SystemError.current("socketpair") }
      client = FileDescriptor(rawValue: fds[1])
      let stream = try LineStream(
        fd: FileDescriptor(rawValue: fds[0]), loop: loop, maxLineBytes: 1 << 16, maxQueuedOutput: 1 << 20
      ) { _ in }
      connection = ControlConnection(stream: stream, budget: OutputBudget(log: apps.log))
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
    fixture.status.startedAt = MonotonicClock.now().advanced(by: .seconds(-30))
    fixture.status.cgroupMode = "v1"
    fixture.status.recordsWritten = 12
    fixture.status.config.suspend.mode = .signal
    try fixture.status.state.run("mail", pid: 1000)
    try fixture.status.state.run("maps", pid: 1001, foreground: false)
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
    try fixture.status.state.run("mail", pid: 1000)
    try fixture.status.state.run("notes", pid: 1001, foreground: false)
    try fixture.status.state.submit([
      .exited(app: "notes", pid: 1001, end: .exited(code: 0), oomKilled: false, at: TestPolicy.at)
    ])
    let cgroup = FakeCgroup(name: "mail", limits: AppLimits(memoryBytes: 256 << 20))
    cgroup.memory = 64 << 20
    fixture.status.cgroups = ["mail": cgroup]
    let apps = try #require(fixture.handle(ControlRequest(verb: .ps))?.apps)
    #expect(fixture.status.continuedNoticed == 1)
    #expect(apps.map(\.status.name) == ["mail", "notes"])
    let mail = try #require(apps.first)
    #expect(mail.status.pid == 1000 && mail.status.state.coarse == .foreground && mail.status.launch == 1)
    #expect(mail.measured.memoryBytes == 64 << 20 && mail.measured.memoryLimitBytes == 256 << 20)
    let notes = try #require(apps.last)
    #expect(notes.status.pid == nil && notes.status.state.coarse == .notRunning && notes.measured.memoryBytes == 0)
  }

  @Test("watch: the whole picture now, continued apps noticed first, then the connection handed to the live feed")
  func watch() throws {
    let fixture = try Fixture()
    try fixture.status.state.run("mail", pid: 1000)
    fixture.status.availableBytes = 99 << 20
    var request = ControlRequest(verb: .watch)
    request.interval = 0.5
    let snapshot = try #require(fixture.handle(request)?.watch)
    #expect(fixture.status.continuedNoticed == 1)
    #expect(snapshot.apps.map(\.status.name) == ["mail"] && snapshot.pressure.availableBytes == 99 << 20)
    #expect(snapshot.intervalSeconds == 0.5 && fixture.status.watchers == [.milliseconds(500)])
    request.interval = 600
    #expect(fixture.handle(request)?.error?.code == .badRequest)
    #expect(fixture.status.watchers.count == 1, "a refused watch is not handed on")
  }

  @Test("a launch of a running app is refused, and nothing is submitted")
  func launchOfRunningAppRefused() throws {
    let fixture = try Fixture()
    try fixture.apps.state.run("mail", pid: 1000)
    let answer = try #require(fixture.handle(Self.launch("mail", command: ["/usr/bin/other"])))
    #expect(!answer.ok && answer.error?.code == .illegalTransition)
    #expect(fixture.apps.submitted.isEmpty)
    #expect(fixture.apps.policy.settings(of: "mail")?.launch?.command != ["/usr/bin/other"])
  }

  @Test("a launch while jetsamd stops is refused")
  func launchWhileStoppingRefused() throws {
    let fixture = try Fixture()
    fixture.apps.shuttingDown = true
    let answer = try #require(fixture.handle(Self.launch("mail")))
    #expect(answer.error?.code == .launchFailed && answer.error?.message == "jetsamd is stopping")
    #expect(fixture.apps.submitted.isEmpty && fixture.apps.policy.app(named: "mail") == nil)
  }

  @Test("a launch the policy refuses leaves the app's settings as they were")
  func launchRefusedByPolicy() throws {
    let fixture = try Fixture()
    try fixture.apps.submit([
      .configure(app: "mail", bandFloor: nil, launchCount: 0, launch: LaunchSpec(command: ["/usr/bin/old"]))
    ])
    fixture.apps.refusal = .illegalTransition(app: "mail", from: .terminated, request: "launch")
    let answer = try #require(fixture.handle(Self.launch("mail", command: ["/usr/bin/new"])))
    #expect(answer.error?.code == .illegalTransition)
    #expect(fixture.apps.policy.settings(of: "mail")?.launch?.command == ["/usr/bin/old"])
  }

  @Test("an ad-hoc launch: its spec in its settings, configure and launch submitted together, the app answered")
  func launchAccepted() throws {
    let fixture = try Fixture()
    var request = Self.launch("mail")
    request.background = true
    let answer = try #require(fixture.handle(request))
    #expect(answer.ok && answer.app?.status.name == "mail" && answer.app?.status.state.coarse == .foreground)
    let batch = try #require(fixture.apps.submitted.first)
    guard case .configure("mail", let settings, 0) = batch.first, case .launch("mail", false, _) = batch.last else {
      Issue.record("expected configure then a background launch, got \(batch)")
      return
    }
    #expect(settings.adHoc && batch.count == 2)
    #expect(settings.launch?.command == ["/usr/bin/mail"])
    #expect(fixture.apps.policy.settings(of: "mail")?.launch == settings.launch)
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
    #expect(fixture.apps.submitted.isEmpty)
    // Once the check finds nothing, the same launch goes ahead.
    #expect(fixture.handle(request) == nil)
    fixture.commandCheck.answer(nil)
    #expect(try fixture.replies().first?.ok == true)
    #expect(fixture.apps.submitted.count == 1)
  }

  @Test("a launch the spawner service answers later is answered then, with the pid")
  func launchAnsweredLater() throws {
    let fixture = try Fixture()
    fixture.apps.inFlight = ["mail"]
    #expect(fixture.handle(Self.launch("mail")) == nil)
    #expect(try fixture.replies().isEmpty, "nothing before the spawner's answer")
    try fixture.apps.settleSpawn(of: "mail", pid: 4242)
    let reply = try #require(try fixture.replies().first)
    #expect(reply.ok && reply.app?.status.name == "mail" && reply.app?.status.pid == 4242)
  }

  @Test("a launch is answered once the state file holds the new process, and not before")
  func launchAnsweredOnceSaved() throws {
    let fixture = try Fixture()
    fixture.apps.inFlight = ["mail"]
    fixture.apps.holdingSaves = true
    #expect(fixture.handle(Self.launch("mail")) == nil)
    try fixture.apps.settleSpawn(of: "mail", pid: 4242)
    #expect(try fixture.replies().isEmpty, "nothing while the state file does not hold pid 4242")
    fixture.apps.finishSaves()
    let reply = try #require(try fixture.replies().first)
    #expect(reply.ok && reply.app?.status.pid == 4242)
    // The answer names the process the spawn started even when that has ended by the time the file holds it.
    fixture.apps.inFlight = ["notes"]
    #expect(fixture.handle(Self.launch("notes")) == nil)
    try fixture.apps.settleSpawn(of: "notes", pid: 4343)
    try fixture.apps.state.submit([
      .exited(app: "notes", pid: 4343, end: .exited(code: 3), oomKilled: false, at: TestPolicy.at)
    ])
    #expect(try fixture.replies().isEmpty)
    fixture.apps.finishSaves()
    let ended = try #require(try fixture.replies().first)
    #expect(ended.app?.status.name == "notes" && ended.app?.status.pid == 4343)
  }

  @Test("device: the switch goes to the policy and the watchers, and the answer says it")
  func deviceCharging() throws {
    let fixture = try Fixture()
    var request = ControlRequest(verb: .device)
    request.charging = true
    let answer = try #require(fixture.handle(request))
    #expect(answer.device?.charging == true)
    #expect(fixture.pressure.devicePublished == [true])
    guard case .setCharging(true, _)? = fixture.pressure.submitted.first?.first else {
      Issue.record("expected setCharging, got \(fixture.pressure.submitted)")
      return
    }
  }

  @Test("pressure: the view's figures, the policy's level, the config's mode")
  func pressure() throws {
    let fixture = try Fixture()
    fixture.pressure.availableBytes = 123 << 20
    fixture.pressure.config.device.ram = .bytes(4 << 30)
    let info = try #require(fixture.handle(ControlRequest(verb: .pressure))?.pressure)
    #expect(info.level == .normal && info.forcedLevel == nil && info.mode == "device")
    #expect(info.ramBytes == 4 << 30 && info.availableBytes == 123 << 20 && info.balloonBytes == 0)
  }

  @Test("metrics --prometheus: the exposition as the view renders it")
  func prometheus() throws {
    let fixture = try Fixture()
    fixture.records.exposition = "jetsam_pressure_level 3\n"
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
        app: app, pid: pid, launch: 1,
        cause: ExitCause(reason: .memoryPressure, terminationReason: "SIGKILL", endedBy: .jetsam, signal: 9),
        lifecycle: ExitLifecycle(state: .suspended, aliveSeconds: 2, stateSeconds: 1),
        pressure: ExitPressure(level: .critical, availableBytes: 0))
    }
    // "logged" is durable and, as the loop has not heard so yet, still queued; "queued" is only queued.
    try fixture.records.recordLog.append(record("logged", pid: 7))
    fixture.records.unwrittenRecords = [record("logged", pid: 7), record("queued", pid: 8)]
    fixture.background.holding = true
    #expect(fixture.handle(ControlRequest(verb: .metrics)) == nil)
    fixture.background.finish()
    let reply = try #require(try fixture.replies().first)
    let payloads = try #require(reply.metrics)
    #expect(payloads.map(\.metaData.bundleIdentifier) == ["logged", "queued"])
    #expect(payloads.allSatisfy { $0.applicationExitMetrics.backgroundExitData.counts[.memoryPressure] == 1 })
  }
}
