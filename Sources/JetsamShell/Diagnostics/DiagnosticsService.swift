import CJetsamShim
import FoundationEssentials
import Glibc
import JetsamCore
import JetsamPlatform
import JetsamProtocol

/// Takes and keeps diagnostics: the call stacks of an app's process (``StackTool``, a process started through the
/// launcher, its output read within a time budget on a helper thread), laid out as MetricKit lays them out,
/// written durably to the ``DiagnosticStore`` and then told (journal, log). Nothing here waits on the loop: a
/// capture reports back through it, and a kill that must follow a capture (a hang's) waits for
/// ``whenCaptured(app:pid:then:)``.
final class DiagnosticsService {
  /// How captures are taken (the config's `diagnostics`).
  struct Settings: Sendable {
    /// Whether call stacks are taken at all (false: diagnostics carry only their figures).
    var callStacks = true
    /// How long one capture may take before the tool is killed and the diagnostic says so.
    var captureBudget: Duration = .seconds(1)
    /// How many stack samples a CPU exception takes, and how far apart.
    var cpuSamples = 10
    var cpuSampleInterval: Duration = .milliseconds(100)
  }

  /// Where captures run off the loop: hangs (before a kill) and crashes on `urgent`; CPU samples, which take a
  /// while, on `sampling`, so that a watchdog kill never waits behind them.
  struct Workers {
    var urgent: any BackgroundRunning
    var sampling: any BackgroundRunning

    /// The daemon's: a helper queue each, reporting back through `loop`.
    static func background(loop: EventLoop) throws -> Workers {
      Workers(
        urgent: try BackgroundWork(loop: loop, label: "jetsamd.diagnostics", qos: .userInitiated),
        sampling: try BackgroundWork(loop: loop, label: "jetsamd.cpu-samples", qos: .utility))
    }
  }

  /// Who a diagnostic is about.
  struct Subject: Sendable, Hashable {
    var app: String
    var pid: Int32
  }

  private let store: DiagnosticStore
  private let tool: StackTool
  private let settings: Settings
  private let log: Logger
  private let journal: Journal
  private let loop: any LoopScheduling
  /// Starts jetsam-stack through the launcher and reaps it.
  private let tools: ToolStarter
  private let workers: Workers
  /// Captures under way per process, and the processes one of whose captures takes several samples, a while apart.
  private var inFlight = WorkUnderWay<Subject>()
  private var sampling: Set<Subject> = []
  /// The diagnostics written for each process, for its exit record.
  private var written: [Subject: [String]] = [:]
  private var sequence = 0
  private let host: HostDescription

  /// Keeps diagnostics in `stateDirectory` (the newest `keep`), taken by the program at `toolPath` started through
  /// `launcher`, on `workers`.
  init(
    loop: any LoopScheduling, launcher: any ProcessLauncher, stateDirectory: String, toolPath: String,
    settings: Settings, keep: Int, log: Logger, journal: Journal, workers: Workers
  ) {
    self.loop = loop
    tools = ToolStarter(loop: loop, launcher: launcher)
    var store = DiagnosticStore(stateDirectory: stateDirectory)
    store.limit = keep
    self.store = store
    self.tool = StackTool(path: toolPath)
    self.settings = settings
    self.log = log
    self.journal = journal
    self.workers = workers
    host = HostDescription.current()
  }

  /// Takes the diagnostic `request` asks for of `app`'s process `pid` (launch `launch`); `then` runs on the loop once
  /// it is written (or could not be). `target` is a pidfd of the process whose stacks are taken (the crashed one, or
  /// the app's main process), owned and closed here: the stack tool attaches to that process and no other.
  func capture(
    app: String, pid: Int32, launch: Int, _ request: DiagnosticRequest, target: FileDescriptor,
    then: (() -> Void)? = nil
  ) {
    // The launcher has its own copy once the tool's request is made (or there is none to make).
    defer { target.close() }
    let subject = Subject(app: app, pid: pid)
    inFlight.started(subject, then: then)
    if CaptureJob.samples(for: request, settings: settings) > 1 { sampling.insert(subject) }
    sequence += 1
    var job = CaptureJob(
      subject: subject, launch: launch, request: request, sequence: sequence, host: host, run: nil,
      startProblem: nil, settings: settings, store: store)
    guard settings.callStacks else { return start(job) }
    let samples = CaptureJob.samples(for: request, settings: settings)
    let pid = job.target.pid
    tools.start(
      "jetsam-stack",
      request: { [tool, settings] output in
        tool.request(pid: pid, pidfd: target, samples: samples, interval: settings.cpuSampleInterval, output: output)
      },
      then: { [weak self] started in
        switch started {
        case .success(let run): job.run = run
        case .failure(let failure): job.startProblem = failure.message
        }
        self?.start(job)
      })
  }

  private func start(_ job: CaptureJob) {
    let work = job.kind == .cpuException || job.kind == .diskWriteException ? workers.sampling : workers.urgent
    let subject = job.subject
    work.run({ job.perform() }, then: { [weak self] result in self?.finished(subject, result) })
  }

  /// Crash reports refused since jetsamd started (``CrashReportCheck``): lines no process of the app could send of
  /// itself. Each app's first refusal is logged; the rest are only counted, so that a flood costs nothing.
  private(set) var refusedCrashReports = 0
  private var refusalsLogged: Set<Subject> = []

  /// A crash report from `app`'s process `pid` (its launch's) was refused, for `reason`.
  func refusedCrashReport(app: String, pid: Int32, reason: String) {
    refusedCrashReports += 1
    guard refusalsLogged.insert(Subject(app: app, pid: pid)).inserted else { return }
    log.warning("\(app) pid \(pid): crash report refused: \(reason) (further refusals are only counted)")
  }

  /// The most diagnostics one exit record refers to (the newest).
  static let maximumPerRecord = 32

  /// Whether a capture of `pid` is under way.
  func isCapturing(app: String, pid: Int32) -> Bool { inFlight.isBusy(Subject(app: app, pid: pid)) }

  /// Calls `then` once the captures of `pid` under way are done (written or failed), or at once if there are none.
  /// A capture that never reports back (its helper stuck) holds nothing: past its budget (with a CPU exception's
  /// sampling) and a second, `then` runs.
  func whenCaptured(app: String, pid: Int32, then: @escaping () -> Void) {
    let subject = Subject(app: app, pid: pid)
    guard inFlight.isBusy(subject) else { return then() }
    let samples = sampling.contains(subject) ? settings.cpuSampleInterval * (settings.cpuSamples - 1) : .zero
    let deadline = loop.now().advanced(by: settings.captureBudget + samples + .seconds(1))
    _ = inFlight.wait(for: subject, loop.boundedWait(until: deadline, then: then))
  }

  /// The diagnostics written for `pid` (ids, oldest first), forgotten once asked: its exit record refers to them.
  func takeWritten(app: String, pid: Int32) -> [String] {
    refusalsLogged.remove(Subject(app: app, pid: pid))
    return written.removeValue(forKey: Subject(app: app, pid: pid)) ?? []
  }

  /// Every diagnostic kept (for the control socket: read on a helper thread).
  var reader: DiagnosticStore { store }

  private func finished(_ subject: Subject, _ result: Result<DiagnosticRecord, SystemError>) {
    switch result {
    case .success(let record):
      // Bounded: an app that goes over its CPU budget again and again for weeks keeps only its latest.
      written[subject, default: []].append(record.id)
      if written[subject]!.count > DiagnosticsService.maximumPerRecord { written[subject]!.removeFirst() }
      let top =
        record.diagnostic.callStackTree.map { DiagnosticsService.summary($0, kind: record.kind) } ?? "no call stacks"
      let problem = record.diagnostic.diagnosticMetaData.jetsamCaptureError.map { " (\($0))" } ?? ""
      log.notice("\(subject.app) pid \(subject.pid): \(record.kind.rawValue) diagnostic \(record.id): \(top)\(problem)")
      journal.diagnostic(record, summary: top)
    case .failure(let error):
      log.error("\(subject.app) pid \(subject.pid): diagnostic not kept: \(error)")
    }
    let waiters = inFlight.finished(subject)
    if !inFlight.isBusy(subject) { sampling.remove(subject) }
    for waiter in waiters { waiter() }
  }

  /// `burn_cpu ← command_spin ← main`: the attributed thread's named frames along the path most samples took,
  /// innermost first (a crash's tree has it at the root; hang and CPU trees at the leaves).
  static func summary(_ tree: CallStackTree, kind: DiagnosticKind) -> String {
    let path = kind == .crash ? tree.attributedPath : tree.attributedPath.reversed()
    let names = path.compactMap(\.symbol)
    return names.isEmpty ? "no symbols" : names.prefix(6).joined(separator: " ← ")
  }
}
