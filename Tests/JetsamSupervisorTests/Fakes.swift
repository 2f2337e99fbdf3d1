import Foundation
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol
import JetsamValues
import JetsamWire

@testable import JetsamConfig
@testable import JetsamShell
@testable import JetsamSpawning

// Recording fakes behind the supervisor's seams: no root, no cgroups, no real processes. What the supervisor
// asked for is recorded; what the kernel would say is scripted by the test.

/// A descriptor the fakes can hand out and the supervisor may close: /dev/null, never one of the test's own.
func scratchDescriptor() -> FileDescriptor {
  FileDescriptor(rawValue: open("/dev/null", O_RDONLY | O_CLOEXEC))
}

/// A loop whose time the test moves: timers fire in deadline order when ``advance(by:)`` passes them.
final class FakeLoop: LoopScheduling {
  final class Source: LoopSource {
    var deadline: Instant?
    var cancelled = false
    let fire: (UInt32) -> Void
    init(fire: @escaping (UInt32) -> Void) { self.fire = fire }
    func schedule(at deadline: Instant?) { self.deadline = deadline }
    func cancel() {
      cancelled = true
      deadline = nil
    }
  }

  var clock = Instant.seconds(100)
  private(set) var timers: [Source] = []
  private(set) var watches: [Int32: Source] = [:]
  /// How many times timer handlers ran.
  private(set) var timerFirings = 0
  /// Whether watches fail (descriptors used up, say).
  var failWatches = false

  func addWatch(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws -> any LoopSource {
    if failWatches { throw SystemError(code: EMFILE, "epoll_ctl") }
    let source = Source(fire: handler)
    watches[fd] = source
    return source
  }

  func addTimer(at deadline: Instant?, handler: @escaping () -> Void) throws -> any LoopSource {
    let source = Source { _ in handler() }
    source.deadline = deadline
    timers.append(source)
    return source
  }

  /// Runs the handler as soon as it is armed: a test sees a run's end as it returns.
  final class TurnSource: LoopTurnSource {
    let handler: () -> Void
    init(handler: @escaping () -> Void) { self.handler = handler }
    func arm() { handler() }
  }

  func addNextTurn(handler: @escaping () -> Void) throws -> any LoopTurnSource { TurnSource(handler: handler) }

  func now() -> Instant { clock }

  /// Moves time on by `duration`, firing every timer that falls due on the way, in order.
  func advance(by duration: Duration) {
    let end = clock.advanced(by: duration)
    while let next = timers.filter({ !$0.cancelled && $0.deadline != nil && $0.deadline! <= end })
      .min(by: { $0.deadline! < $1.deadline! })
    {
      clock = max(clock, next.deadline!)
      next.deadline = nil
      timerFirings += 1
      next.fire(0)
    }
    clock = end
  }

  /// Makes the watch on `fd` fire, as the kernel would when it is ready.
  func ready(_ fd: FileDescriptor) {
    guard let source = watches[fd.rawValue], !source.cancelled else { return }
    source.fire(EpollEvents.readable | EpollEvents.priority)
  }

  /// Whether `fd` is watched.
  func isWatched(_ fd: FileDescriptor) -> Bool { watches[fd.rawValue].map { !$0.cancelled } ?? false }
}

/// One app's cgroup, scripted: its processes, whether it is populated or frozen, its memory.
final class FakeCgroup: AppCgroupControl {
  let name: String
  let limits: AppLimits
  var displayPath: String { "/fake/\(name)" }
  let spawnDirectory = scratchDescriptor()
  let joinProcsFiles: [String] = []
  let eventsDescriptor = scratchDescriptor()
  var pids: [pid_t] = []
  var populated = true
  var frozen = false
  var memory: Int64 = 0
  var oomKills = 0
  /// How many removal attempts answer "still busy" before one succeeds.
  var busyRemovals = 0
  /// What removal attempts throw (a cgroup that cannot be removed at all), if anything.
  var removalError: (any Error)?
  private(set) var calls: [String] = []
  private(set) var removed = false

  init(name: String, limits: AppLimits) {
    self.name = name
    self.limits = limits
  }

  deinit {
    spawnDirectory.close()
    eventsDescriptor.close()
  }

  func processIDs() throws -> [pid_t] { pids }
  func events() throws -> CgroupEvents { CgroupEvents(populated: populated, frozen: frozen) }
  func freeze() throws { calls.append("freeze") }
  func thaw() throws { calls.append("thaw") }
  func killAll() throws { calls.append("killAll") }
  func setLimits(_ limits: AppLimits) throws { calls.append("setLimits") }
  func memoryUsage() throws -> Int64 { memory }
  func peakMemory() throws -> Int64 { memory * 2 }
  func memoryLimit() throws -> Int64? { limits.memoryBytes }
  func cpuSeconds() throws -> Double { 1.5 }
  func oomKillCount() throws -> Int { oomKills }
  func removeIfEmpty() throws -> Bool {
    calls.append("remove")
    if let removalError { throw removalError }
    if busyRemovals > 0 {
      busyRemovals -= 1
      return false
    }
    removed = true
    return true
  }
  func busyError() -> Error { CgroupError(.stillPopulated, "remove \(name)") }
}

final class FakeCgroups: CgroupBackend {
  private(set) var made: [FakeCgroup] = []
  func makeAppCgroup(name: String, limits: AppLimits) throws -> any AppCgroupControl {
    let cgroup = FakeCgroup(name: name, limits: limits)
    made.append(cgroup)
    return cgroup
  }
  func adoptAppCgroup(name: String) throws -> any AppCgroupControl { throw CgroupError(.stillPopulated, "adopt") }
  func appNames() throws -> [String] { made.filter { !$0.removed }.map(\.name) }
  /// The last cgroup made for app `name`.
  func cgroup(_ name: String) -> FakeCgroup? { made.last { $0.name == name } }
}

/// Starts nothing: records what would have been started and hands out pids from 1000 up.
final class FakeLauncher: ProcessLauncher {
  private(set) var requests: [SpawnRequest] = []
  private(set) var spawned: [SpawnedProcess] = []
  var nextPID: Int32 = 1000
  var failSpawns = false
  /// How each pid ended (what reaping its pidfd says).
  var ends: [Int32: ProcessEnd] = [:]
  /// Pids that cannot be reaped although they ended (a tracer holds them); the kernel still tells how they ended.
  var unreapable: Set<pid_t> = []
  /// The pids whose exit status was to be dropped.
  private(set) var discarded: [pid_t] = []
  /// The pids reaped through their pidfds.
  private(set) var reaped: [pid_t] = []
  /// What each process started writes to its standard output before its launch is answered (a tool's report).
  var output: ((SpawnRequest) -> String)?

  var exitKnown: ((pid_t) -> Void)?
  var childContinued: ((pid_t) -> Void)?
  /// As a spawner service: launches are answered by ``answerSpawns()``, and ends are told through ``exitKnown``
  /// (``reportsExit(of:)`` is true for the pids spawned) instead of being read from the pidfd.
  var answersLater = false
  private var unanswered: [() -> Void] = []
  private var reporting: Set<pid_t> = []

  /// Answers the launches that wait.
  func answerSpawns() {
    let waiting = unanswered
    unanswered = []
    for answer in waiting { answer() }
  }

  /// As a spawner service telling how `pid` ended.
  func tellEnd(_ end: ProcessEnd, of pid: pid_t) {
    reporting.remove(pid)
    ends[pid] = end
    exitKnown?(pid)
  }

  func spawn(_ request: SpawnRequest, completion: @escaping (Result<SpawnedProcess, SpawnError>) -> Void) {
    if answersLater {
      // The request's descriptors belong to the caller after this returns: only the request is kept.
      return unanswered.append { [self] in
        answersLater = false
        spawn(request) { result in
          if case .success(let process) = result { self.reporting.insert(process.pid) }
          completion(result)
        }
        answersLater = true
      }
    }
    if failSpawns {
      return completion(
        .failure(SpawnError(stage: .resolveExecutable, errno: ENOENT, detail: request.arguments.first ?? "")))
    }
    requests.append(request)
    if let output, let stdout = request.stdout {
      let bytes = Array(output(request).utf8)
      _ = bytes.withUnsafeBytes { Glibc.write(stdout.rawValue, $0.baseAddress, $0.count) }
    }
    let process = SpawnedProcess(pid: nextPID, pidfd: scratchDescriptor())
    nextPID += 1
    spawned.append(process)
    completion(.success(process))
  }
  func openPidfd(pid: pid_t) throws -> FileDescriptor { scratchDescriptor() }
  func reap(pid: pid_t, pidfd: FileDescriptor) throws -> ProcessEnd? {
    reaped.append(pid)
    return reporting.contains(pid) || unreapable.contains(pid) ? nil : ends[pid]
  }
  func exitStatus(ofAdopted pid: pid_t, pidfd: FileDescriptor, startTime: UInt64) -> ProcessEnd? { ends[pid] }
  func reportsExit(of pid: pid_t) -> Bool { reporting.contains(pid) }
  func discardExit(of pid: pid_t) { discarded.append(pid) }
  func takeReportedEnd(of pid: pid_t) -> ProcessEnd? { nil }
  func takeReportedEnd(ofApp name: String) -> (pid: pid_t, end: ProcessEnd)? { nil }
  func startTime(of pid: pid_t) -> UInt64 { 1 }
}

/// Records signals; process states are scripted (a pid not listed is running, `R`).
final class FakeSignals: SignalSender {
  private(set) var sent: [(signal: Signal, pid: pid_t)] = []
  private(set) var sentThroughPidfd: [Signal] = []
  private(set) var scores: [pid_t: Int32] = [:]
  var states: [pid_t: Character] = [:]
  /// What waitid on a child's pidfd says, by descriptor number; a pidfd not listed cannot tell (an adopted app).
  var childStopped: [Int32: Bool] = [:]

  func send(_ signal: Signal, to pid: pid_t) { sent.append((signal, pid)) }
  /// Whether signals through a pidfd fail (the process is gone).
  var failPidfdSignals = false

  /// Called as a signal is sent through a pidfd, before it counts as sent: what the world looks like at that moment.
  var whenSendingThroughPidfd: (Signal) -> Void = { _ in }

  func send(_ signal: Signal, pidfd: FileDescriptor) throws {
    if failPidfdSignals { throw SystemError(code: ESRCH, "pidfd_send_signal") }
    whenSendingThroughPidfd(signal)
    sentThroughPidfd.append(signal)
  }
  func state(of pid: pid_t) -> Character? { states[pid] ?? "R" }
  func isStoppedChild(pidfd: FileDescriptor) -> Bool? { childStopped[pidfd.rawValue] }
  /// What waitid says of a child's continuation, by descriptor number.
  var childContinued: [Int32: Bool] = [:]
  func isContinuedChild(pidfd: FileDescriptor) -> Bool? { childContinued[pidfd.rawValue] }
  func setOOMScoreAdj(_ value: Int32, of pid: pid_t) throws { scores[pid] = value }

  /// How many times `signal` went to `pid`.
  func count(_ signal: Signal, to pid: pid_t) -> Int { sent.filter { $0.signal == signal && $0.pid == pid }.count }
}

/// A record log that fails while `failing`, and while `holding` keeps each write on its way until
/// ``finishWrites()`` (a slow disk).
final class FakeRecords: RecordSink {
  private(set) var records: [ExitRecord] = []
  var failing = false
  var holding = false
  /// Writes on their way (held), oldest first.
  private(set) var inFlight: [(record: ExitRecord, done: (Result<Void, SystemError>) -> Void)] = []
  var written: Int { records.count }
  /// Every write asked for, failed ones included.
  private(set) var attempts = 0

  func write(_ record: ExitRecord, done: @escaping (Result<Void, SystemError>) -> Void) {
    attempts += 1
    if holding { return inFlight.append((record, done)) }
    complete(record, done)
  }

  /// Ends the writes held so far, as the disk would.
  func finishWrites() {
    let writes = inFlight
    inFlight = []
    for write in writes { complete(write.record, write.done) }
  }

  private func complete(_ record: ExitRecord, _ done: (Result<Void, SystemError>) -> Void) {
    if failing { return done(.failure(SystemError(code: ENOSPC, "write exits.jsonl"))) }
    records.append(record)
    done(.success(()))
  }
}

/// A release that finishes when the test says so.
final class FakeReleaser: MemoryReleaser {
  private(set) var pending: [() -> Void] = []
  func release(pidfd: FileDescriptor, done: @escaping () -> Void) -> (any LoopSource)? {
    pending.append(done)
    return FakeLoop.Source { _ in }
  }
  func finishAll() {
    let done = pending
    pending = []
    for finish in done { finish() }
  }
}

/// The user database: the users a test puts in `known`, answered at once, or when the test says with
/// ``answersLater`` (a directory seconds away).
final class FakeUsers: UserDirectory {
  var known: [String: SpawnUser] = [:]
  var answersLater = false
  private(set) var pending: [() -> Void] = []

  func user(named name: String, then: @escaping (Result<SpawnUser, SpawnError>) -> Void) {
    answer { [self] in
      then(known[name].map { .success($0) } ?? .failure(SpawnError(stage: .lookUpUser, errno: 0, detail: name)))
    }
  }

  func user(id uid: uid_t, then: @escaping (SpawnUser?) -> Void) {
    answer { [self] in then(known.values.first { $0.uid == uid }) }
  }

  /// Answers the lookups that wait.
  func answerAll() {
    let waiting = pending
    pending = []
    for answer in waiting { answer() }
  }

  private func answer(_ body: @escaping () -> Void) {
    if answersLater { pending.append(body) } else { body() }
  }
}

/// An app's channel: records the lines sent, and lets the test write lines as the app.
final class FakeChannel: AppChannelEndpoint {
  let fd: FileDescriptor
  let onInput: (LineStream.Input) -> Void
  private(set) var lines: [AppLine] = []
  private(set) var closed = false
  init(fd: FileDescriptor, onInput: @escaping (LineStream.Input) -> Void) {
    self.fd = fd
    self.onInput = onInput
  }
  func send(_ line: AppLine) { lines.append(line) }
  func close() {
    guard !closed else { return }
    closed = true
    fd.close()
  }
  /// The app writes `text` (one line).
  func write(_ text: String) { onInput(.line(Array(text.utf8))) }
}

/// The inbox of a supervisor, or of one of its parts, under test: keeps what was posted, in order.
final class RecordingInbox: ResultInbox {
  /// Everything posted, in order.
  private(set) var posted: [OwnerResult] = []
  /// The events posted for the policy, in order (``clearEvents()`` forgets them).
  private(set) var events: [PolicyEvent] = []
  /// Everything else posted, in order.
  private(set) var notices: [OwnerResult] = []

  func post(_ result: OwnerResult) {
    posted.append(result)
    if case .observed(let posted) = result { events += posted } else { notices.append(result) }
  }

  /// What was posted, a word each (the case's name: `observed`, `recordDurable`…), in order.
  var kinds: [String] { posted.map { String("\($0)".prefix { $0 != "(" }) } }

  /// Forgets the events posted so far (the notices stay).
  func clearEvents() { events = [] }

  /// The records told durable, in order.
  var recorded: [ExitRecord] { notices.compactMap { if case .recordDurable(let record) = $0 { record } else { nil } } }

  /// How many times an app's memory was told back.
  var memoryFreed: Int { notices.filter { if case .memoryFreed = $0 { true } else { false } }.count }

  /// How many times a backlog of records was told written.
  var backlogsWritten: Int { notices.filter { if case .backlogWritten = $0 { true } else { false } }.count }
}

/// A supervisor wired to fakes, with everything it reports collected.
final class SupervisorFixture {
  /// What the actions that only tell were told.
  let announcements = RecordingAnnouncements()
  let loop = FakeLoop()
  let cgroups = FakeCgroups()
  let launcher = FakeLauncher()
  let signals = FakeSignals()
  let records = FakeRecords()
  let releaser = FakeReleaser()
  let users = FakeUsers()
  private let channelLog = ChannelLog()
  /// What the supervisor reported.
  let inbox = RecordingInbox()
  /// The events it reported for the policy, in order.
  var reported: [PolicyEvent] { inbox.events }
  /// The records it told durable, in order.
  var recorded: [ExitRecord] { inbox.recorded }
  let stateDirectory: String
  /// Where the supervisor notes its kills (in ``stateDirectory``).
  let killJournal: KillJournal
  let supervisor: AppSupervisor
  /// How each app is started, as the policy's spawn action would carry it.
  var specs: [String: LaunchSpec] = [:]

  init(mode: SuspendConfig.Mode = .signal) throws {
    stateDirectory = NSTemporaryDirectory() + "jetsam-supervisor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: stateDirectory + "/logs", withIntermediateDirectories: true)
    let channelLog = self.channelLog
    killJournal = KillJournal(directory: stateDirectory, log: Logger(threshold: .error))
    supervisor = AppSupervisor(
      seams: AppSupervisor.Seams(
        loop: loop, cgroups: cgroups, launcher: launcher, signals: signals, records: records, releaser: releaser,
        users: users,
        openChannel: { fd, onInput in
          let channel = FakeChannel(fd: fd, onInput: onInput)
          channelLog.channels.append(channel)
          return channel
        }, oomScore: { band in Int32(900 - band.rawValue * 80) }, killJournal: killJournal),
      inbox: inbox, log: Logger(threshold: .error), suspendMode: mode, stateDirectory: stateDirectory)
  }

  /// Every channel opened so far.
  var openedChannels: [FakeChannel] { channelLog.channels }

  deinit { try? FileManager.default.removeItem(atPath: stateDirectory) }

  /// Configures app `name` to run `command`.

  /// Carries out `action` as the daemon does, through ``ActionDispatch``.
  func perform(_ action: PolicyAction) {
    ActionDispatch.carryOut(action, apps: supervisor, announcements: announcements)
  }
  func configure(_ name: String, command: [String] = ["/bin/app"], memoryLimit: Int64? = nil) {
    specs[name] = LaunchSpec(command: command, limits: AppLimits(memoryBytes: memoryLimit, pids: 64))
  }

  /// Carries out the policy's spawn of app `name` with its spec (configured with the defaults if it was not).
  func spawn(_ name: String, launch: Int = 1, previousExit: PreviousExit? = nil) {
    if specs[name] == nil { configure(name) }
    perform(.spawn(app: name, launch: launch, previousExit: previousExit, spec: specs[name]!))
  }

  /// Launches app `name` and returns its pid.
  @discardableResult
  func launch(_ name: String, previousExit: PreviousExit? = nil) throws -> Int32 {
    spawn(name, previousExit: previousExit)
    guard case .spawned(name, let pid, _)? = reported.last else {
      throw FixtureError("no spawned report for \(name): \(reported)")
    }
    cgroups.cgroup(name)?.pids = [pid, pid + 500]
    return pid
  }

  /// The pidfd the supervisor was given for the process it spawned as `pid`.
  func pidfd(of pid: pid_t) throws -> FileDescriptor {
    guard let pidfd = launcher.spawned.first(where: { $0.pid == pid })?.pidfd else {
      throw FixtureError("no process spawned as \(pid)")
    }
    return pidfd
  }

  /// Forgets what was reported so far.
  func clearReports() { inbox.clearEvents() }
}

/// The channels a fixture's supervisor opened.
final class ChannelLog {
  var channels: [FakeChannel] = []
}

struct FixtureError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Records what the announcing actions said.
final class RecordingAnnouncements: PolicyAnnouncements {
  private(set) var told: [String] = []

  func levelChanged(from: PressureLevel, to: PressureLevel, available: Int64) {
    told.append("level \(from.name) → \(to.name)")
  }
  func restorationJudged(
    app: String, launch: Int, verdict: RestorationVerdict, savedDigest: String?, restoredDigest: String?
  ) { told.append("restoration \(app) \(verdict.rawValue)") }
  func resumptionJudged(app: String, launch: Int, judgement: ResumptionJudgement) {
    told.append("resumption \(app) \(judgement.verdict.rawValue)")
  }
  func suspensionDeferred(app: String, pid: Int32, locks: [HeldLock]) { told.append("deferred \(app)") }
  func socketsDefuncted(app: String, pid: Int32, sockets: [DefunctedSocket], problem: String?) {
    told.append("sockets \(app) \(sockets.count)")
  }
  func signposted(app: String, pid: Int32, name: String, phase: SignpostPhase) {
    told.append("signpost \(app) \(name) \(phase.rawValue)")
  }
  func acknowledged(app: String, pid: Int32, event: AppEventKind) {
    told.append("acknowledged \(app) \(event.rawValue)")
  }
  func watchdogHeld(app: String, pid: Int32, event: AppEventKind, tracer: Int32?) {
    told.append("watchdog \(app) \(event.rawValue) \(tracer.map { "held by \($0)" } ?? "running")")
  }
}

/// App `name` as the supervisor holds it while it runs: its main process `pid`, in a fake cgroup that lists `pid` and
/// `others`.
func runningApp(_ name: String, pid: Int32 = 1000, others: [Int32] = [], pidfd: FileDescriptor = scratchDescriptor())
  -> (app: AppProcess, cgroup: FakeCgroup)
{
  let cgroup = FakeCgroup(name: name, limits: AppLimits())
  cgroup.pids = [pid] + others
  return (AppProcess(name: name, launch: 1, cgroup: cgroup, pid: pid, pidfd: pidfd), cgroup)
}

extension Array {
  /// The one element, or nil when there are none or several: what a test expects exactly one of.
  var only: Element? { count == 1 ? first : nil }
}

extension KillInFlight {
  /// A jetsam kill decided at critical pressure, with `snapshot`.
  static func jetsamAtCritical(_ snapshot: [SnapshotEntry]) -> KillInFlight {
    KillInFlight(kill: .jetsam, level: .critical, availableBytes: 1 << 20, snapshot: snapshot)
  }
}
